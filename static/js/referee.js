/* The referee's result form on a phone: big - and + buttons beside each score, the score or the
   walkover's side shown as the outcome says, and one submission per tap (the form's key makes a
   second one harmless anyway). No framework, no build step. */
(function () {
  "use strict";
  var form = document.getElementById("referee-result");
  if (!form) { return; }
  form.addEventListener("click", function (event) {
    var button = event.target.closest(".stepper-btn");
    if (!button) { return; }
    var input = button.parentNode.querySelector("input");
    var value = parseInt(input.value, 10);
    if (isNaN(value)) { value = 0; } else { value += parseInt(button.dataset.step, 10); }
    input.value = String(Math.max(0, Math.min(99, value)));
    input.dispatchEvent(new Event("change", { bubbles: true }));
  });
  function follow() {
    var checked = form.querySelector("input[name=outcome]:checked");
    var outcome = checked ? checked.value : "played";
    form.querySelectorAll("[data-when]").forEach(function (part) {
      part.hidden = part.dataset.when !== outcome;
    });
  }
  form.addEventListener("change", function (event) {
    if (event.target.name === "outcome") { follow(); }
  });
  follow();
  // a double tap sends once; after a few seconds the button is back, for a retry when the hall's
  // network lost the answer (the same key: the result is still stored once)
  form.addEventListener("submit", function () {
    var save = form.querySelector("button[type=submit]");
    window.setTimeout(function () { save.disabled = true; }, 0);
    window.setTimeout(function () { save.disabled = false; }, 4000);
  });
}());
