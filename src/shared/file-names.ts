/** A file's name as a message quotes it: in quotes, on one line, at most 80 characters (file names are untrusted text). */
export function quotedName(name: string): string {
  const line = name.replace(/[\r\n\t]+/g, ' ');
  return `"${line.length > 80 ? `${line.slice(0, 77)}...` : line}"`;
}
