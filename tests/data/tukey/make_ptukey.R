# R's studentized range survival function on a grid: ptukey(q, nmeans, df, lower.tail = FALSE) for q in a grid
# over [0.05, 12], nmeans 2..20 and df from 2 to 200, the bounds of ptukey's interval lengths (100, 800, 5000),
# the sizes of the Tukey tests (1881: 20 systems x 100 topics), 25001 (above which df is taken as infinite) and Inf.
# Run from this folder: Rscript make_ptukey.R. Writes ptukey.csv (q, nmeans, df, p), 17 significant digits,
# and qtukey.csv (p, nmeans, df, q): qtukey(p, nmeans, df) on a grid (NaN where its secant steps fail, as R).
q <- c(0.05, 0.3, 0.8, 1.5, 2, 2.5, 2.95, 3.05, 3.5, 4, 4.5, 5, 5.5, 6, 7, 8, 10, 12)
dfs <- c(2, 3, 4, 5, 7, 10, 15, 20, 30, 45, 60, 99, 100, 101, 150, 200, 800, 801, 1881, 5000, 5001, 25001, Inf)
grid <- expand.grid(q = q, nmeans = 2:20, df = dfs)
grid$p <- ptukey(grid$q, grid$nmeans, grid$df, lower.tail = FALSE)
grid$p <- sprintf("%.17g", grid$p)
write.csv(grid, "ptukey.csv", row.names = FALSE, quote = FALSE)
quantiles <- expand.grid(p = c(0.5, 0.9, 0.95, 0.99), nmeans = c(2, 3, 5, 8, 12, 20, 50), df = dfs)
quantiles$q <- sprintf("%.17g", qtukey(quantiles$p, quantiles$nmeans, quantiles$df))
write.csv(quantiles, "qtukey.csv", row.names = FALSE, quote = FALSE)
