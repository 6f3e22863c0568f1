// Formatting helpers for the dashboard: no rule may create an item for this change.
export interface LineItem {
  description: string;
  quantity: number;
  unitPriceCents: number;
}

const currency = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

export function lineTotal(item: LineItem): number {
  return item.quantity * item.unitPriceCents;
}

export function formatTotal(items: LineItem[]): string {
  const cents = items.reduce((sum, item) => sum + lineTotal(item), 0);
  return currency.format(cents / 100);
}

export function pluralize(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}
