/**
 * Finds each complete step object in a plan's JSON while it is still being written:
 * `{"thought": "...", "steps": [ {...}, {...} ] }`. Feed it text as it arrives; it returns the raw
 * objects of the steps that closed in that piece. Linear in the text: each character is read once.
 */
export class StepScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;
  /** Depth at which the `steps` array was opened, or -1. */
  private stepsDepth = -1;
  private lastKey = '';
  private keyBuffer = '';
  private stepStart = -1;
  private text = '';

  push(piece: string): unknown[] {
    const found: unknown[] = [];
    const base = this.text.length;
    this.text += piece;
    for (let k = 0; k < piece.length; k++) {
      const c = piece[k]!;
      const at = base + k;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
        else if (this.depth === 1) this.keyBuffer += c;
        continue;
      }
      if (c === '"') {
        this.inString = true;
        if (this.depth === 1) this.keyBuffer = '';
      } else if (c === ':') {
        if (this.depth === 1) this.lastKey = this.keyBuffer;
      } else if (c === '{' || c === '[') {
        this.depth++;
        if (c === '[' && this.depth === 2 && this.lastKey === 'steps') this.stepsDepth = 2;
        if (c === '{' && this.stepsDepth === 2 && this.depth === 3) this.stepStart = at;
      } else if (c === '}' || c === ']') {
        if (c === '}' && this.depth === 3 && this.stepsDepth === 2 && this.stepStart >= 0) {
          try {
            found.push(JSON.parse(this.text.slice(this.stepStart, at + 1)));
          } catch {
            found.push(undefined);
          }
          this.stepStart = -1;
        }
        if (c === ']' && this.depth === 2) this.stepsDepth = -1;
        this.depth--;
      }
    }
    return found;
  }
}
