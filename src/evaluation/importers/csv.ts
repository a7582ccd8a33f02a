/**
 * CSV rows with the line each starts on. Papa Parse does the parsing (quoted fields with commas, quotes and
 * line breaks inside, as MMLU's and GPQA's files have): a CSV reader is easy to get subtly wrong. It is
 * imported on first use so the page that never reads a CSV never loads it.
 */
export async function csvRows(
  file: string,
): Promise<({ line: number; row: string[] } | { line: number; error: string })[]> {
  const { default: Papa } = await import('papaparse');
  // A byte-order mark (Excel writes one) is not part of the first field; the offsets below count without it.
  const text = file.replace(/^\uFEFF/, '');
  const out: ({ line: number; row: string[] } | { line: number; error: string })[] = [];
  let start = 0;
  let line = 1;
  Papa.parse<string[]>(text, {
    skipEmptyLines: false,
    step(result) {
      const end = result.meta.cursor;
      const rowLine = line;
      for (let i = start; i < end && i < text.length; i++) if (text[i] === '\n') line++;
      start = end;
      const error = result.errors[0];
      if (error) out.push({ line: rowLine, error: `not valid CSV (${error.message})` });
      else if (!(result.data.length === 1 && result.data[0]!.trim() === ''))
        out.push({ line: rowLine, row: result.data });
    },
  });
  return out;
}

/** Rows as objects keyed by the header row's names (trimmed); the header itself is not returned. */
type CsvRecord = { line: number; record: Record<string, string> } | { line: number; error: string };

export async function csvRecords(text: string): Promise<CsvRecord[]> {
  const rows = await csvRows(text);
  const headerAt = rows.findIndex((r) => 'row' in r);
  if (headerAt < 0) return rows as { line: number; error: string }[];
  const header = (rows[headerAt] as { row: string[] }).row.map((name) => name.trim());
  return rows.flatMap((entry, i): CsvRecord[] => {
    if (i === headerAt) return [];
    if ('error' in entry) return [entry];
    if (entry.row.length !== header.length)
      return [
        {
          line: entry.line,
          error: `has ${entry.row.length} fields, the header has ${header.length}`,
        },
      ];
    return [{ line: entry.line, record: Object.fromEntries(header.map((name, k) => [name, entry.row[k]!])) }];
  });
}
