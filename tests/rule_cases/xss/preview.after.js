import DOMPurify from "dompurify";

export function showPreview(el, html) {
  // ruleid: xss
  el.innerHTML = html;
}
