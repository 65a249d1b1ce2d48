/** Reading Prometheus' text format in tests: one sample's value by metric name and exact labels. */

/** The value of the sample of `name` with exactly `labels`, or undefined when the text has none. */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const bare = line.startsWith(`${name} `);
    if (!bare && !line.startsWith(`${name}{`)) continue;
    const body = bare ? '' : line.slice(name.length + 1, line.lastIndexOf('}'));
    const found = Object.fromEntries([...body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value) && Object.keys(found).length === Object.keys(labels).length) {
      return Number(line.slice(line.lastIndexOf(' ') + 1));
    }
  }
  return undefined;
}
