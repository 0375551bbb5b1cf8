# R's two-way ANOVA without replication and Tukey HSD on each topic x system matrix of the Tukey tests.
# Run from this folder, after make_matrices.py: Rscript make_reference.R [TESTDATA]
# TESTDATA (default ../../../../shared/testdata): the shared test data, for Sakai's Table 5.1 (stats/).
# Writes <name>.anova.csv (source, df, sum sq, mean sq, F, p-value) and <name>.tukey.csv (run, vs, diff, lwr, upr,
# p adj: R's TukeyHSD(aov(score ~ system + topic), "system"), rows "run-vs"), 17 significant digits.
args <- commandArgs(trailingOnly = TRUE)
testdata <- if (length(args) > 0) args[1] else "../../../../shared/testdata"
inputs <- c(
  sakai_table_5_1 = file.path(testdata, "stats", "sakai_table_5_1.csv"),
  gen_3x20 = "gen_3x20.csv", gen_5x50 = "gen_5x50.csv", gen_20x100 = "gen_20x100.csv", gen_8x10 = "gen_8x10.csv",
  gen_12x60 = "gen_12x60.csv", gen_20x100b = "gen_20x100b.csv"
)
for (name in names(inputs)) {
  d <- read.csv(inputs[[name]], colClasses = c("character", "character", "numeric"))
  d$system <- factor(d$system)
  d$topic <- factor(d$topic)
  fit <- aov(score ~ system + topic, data = d)
  s <- summary(fit)[[1]]
  anova <- data.frame(
    source = c("system", "topic", "residual"), df = s[["Df"]], sum_sq = s[["Sum Sq"]], mean_sq = s[["Mean Sq"]],
    F = s[["F value"]], p = s[["Pr(>F)"]]
  )
  names(anova) <- c("source", "df", "sum sq", "mean sq", "F", "p-value")
  write.csv(format(anova, digits = 17), paste0(name, ".anova.csv"), row.names = FALSE, quote = FALSE)
  t <- TukeyHSD(fit, "system", conf.level = 0.95)$system
  pairs <- do.call(rbind, strsplit(rownames(t), "-", fixed = TRUE))
  tukey <- data.frame(run = pairs[, 1], vs = pairs[, 2], diff = t[, "diff"], lwr = t[, "lwr"], upr = t[, "upr"],
                      p_adj = t[, "p adj"])
  names(tukey)[6] <- "p adj"
  write.csv(format(tukey, digits = 17), paste0(name, ".tukey.csv"), row.names = FALSE, quote = FALSE)
}
