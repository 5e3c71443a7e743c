// With no timezone chosen yet, the settings page offers the browser's own:
// the select picks it and a note says so, to be kept with Save. Without
// this script the select simply shows UTC.

import { t } from "./i18n.js";

const select = document.querySelector("select[data-offer-browser-zone]");
const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
if (select && zone && zone !== select.value && [...select.options].some((o) => o.value === zone)) {
  select.value = zone;
  const note = document.getElementById("tz-note");
  if (note) {
    note.textContent = t("Your browser is in %s: Save to count your days there.", zone);
  }
}
