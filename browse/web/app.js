"use strict";
(function () {
  var b = document.getElementById("copy");
  var p = document.getElementById("pipeline");
  if (!b || !p || !navigator.clipboard) {
    return;
  }
  b.hidden = false;
  b.addEventListener("click", function () {
    navigator.clipboard.writeText(p.textContent).then(function () {
      b.textContent = "Copied";
    }, function () {
      b.textContent = "Copy failed";
    });
  });
})();
