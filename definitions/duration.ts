/** Durations as definitions write them: 500ms, 30s, 15m, 2h, 1d, or combined like 1h30m. */
const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const part = /([0-9]+)(ms|s|m|h|d)/g;

/** Milliseconds of a duration; `undefined` when the text is not a duration. */
export function parseDuration(text: string): number | undefined {
  if (!/^([0-9]+(ms|s|m|h|d))+$/.test(text)) return undefined;
  let total = 0;
  for (const [, amount, unit] of text.matchAll(part)) total += Number(amount) * unitMs[unit!]!;
  return total;
}
