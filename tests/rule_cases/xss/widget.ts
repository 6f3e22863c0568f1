import DOMPurify from "dompurify";

interface Comment {
  body: string;
}

export function render(el: HTMLElement, comment: Comment): void {
  // ruleid: xss
  el.innerHTML = `<p>${comment.body}</p>`;
  // ok: xss
  el.textContent = comment.body;
  // ok: xss
  el.innerHTML = "";
  // ok: xss
  el.innerHTML = DOMPurify.sanitize(comment.body);
  // ruleid: xss
  document.write("<p>" + comment.body + "</p>");
  // ruleid: xss
  el.insertAdjacentHTML("beforeend", comment.body);
  // ok: xss
  el.insertAdjacentHTML("beforeend", "<hr>");
}
