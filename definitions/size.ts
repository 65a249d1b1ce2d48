/** Sizes as definitions and settings write them: 1048576, 512kb, 16mb, 16mib, 1gib (any case). */
const unitBytes: Record<string, number> = {
  '': 1,
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  gb: 1000 ** 3,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
};

/** Bytes of a size; `undefined` when the text is not a size or is zero. */
export function parseSize(size: string | number): number | undefined {
  if (typeof size === 'number') return Number.isSafeInteger(size) && size > 0 ? size : undefined;
  const match = /^(\d+)\s*([a-z]*)$/i.exec(size.trim());
  const unit = match ? unitBytes[match[2]!.toLowerCase()] : undefined;
  if (!match || unit === undefined || Number(match[1]) === 0) return undefined;
  const bytes = Number(match[1]) * unit;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size for messages: 32 MiB, 500 kB, 1234 bytes. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['GiB', 1024 ** 3],
    ['MiB', 1024 ** 2],
    ['KiB', 1024],
    ['GB', 1000 ** 3],
    ['MB', 1000 ** 2],
    ['kB', 1000],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return `${bytes} bytes`;
}
