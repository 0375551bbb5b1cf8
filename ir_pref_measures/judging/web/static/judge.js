// Keyboard answers: each button names its keys in data-key; one key press submits its form once.
(function () {
  "use strict";
  var sent = false;
  var keys = {};
  document.querySelectorAll("button[data-key]").forEach(function (button) {
    button.getAttribute("data-key").split(" ").forEach(function (key) { keys[key.toLowerCase()] = button; });
  });
  document.querySelectorAll("form").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (sent) { event.preventDefault(); return; }  // a double click or a repeated key sends once
      sent = true;
    });
  });
  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    var button = keys[event.key.toLowerCase()];
    if (!button || button.disabled || sent) { return; }
    event.preventDefault();
    button.form.requestSubmit(button);
  });
})();
