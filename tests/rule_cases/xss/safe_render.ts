// Text is set with textContent and elements are created explicitly: nothing to report.
export function renderList(list: HTMLUListElement, items: string[]): void {
  list.replaceChildren();
  for (const item of items) {
    const li = document.createElement("li");
    li.textContent = item;
    list.appendChild(li);
  }
}
