/**
 * An answer's Markdown written again as Markdown that keeps its formatting (headings, lists, tables, code,
 * emphasis, web links) and renders inert in any viewer, one that passes raw HTML through included: raw
 * HTML becomes text (a block of it, a code block), an image becomes a link the reader may follow (an
 * image loads by itself), and a link to anything but http(s) or mail keeps its text and loses its target.
 * Read with marked's lexer (GFM), the parser the page renders answers with; `inertProblems` reads the
 * result again the same way, so a caller can fall back to a plain code block if a construct slipped by.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { safeHref } from './safe-url.ts';

/** A code fence the text cannot close: one backtick longer than any run of backticks or tildes in it. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+|~+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

/** `text` as a fenced code block (shown verbatim, never parsed as Markdown or HTML). */
export function codeBlock(text: string, language = ''): string {
  const fence = fenceFor(text);
  return `${fence}${language}\n${text.replace(/\n$/, '')}\n${fence}`;
}

/**
 * Text to show as it is, on one line: no HTML, no emphasis, link, code or table syntax. `<` and `&` as
 * entities, which every Markdown dialect decodes to text; the rest backslash-escaped.
 */
function literal(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]~]/g, '\\$&');
}

/** The source of a text token: already text where it stood, only `<` and brackets made unable to start markup. */
function text(raw: string): string {
  return raw.replace(/</g, '&lt;').replace(/[[\]]/g, '\\$&');
}

/** A link target as a Markdown destination: characters that would end or split it percent-encoded. */
function destination(href: string): string {
  return href.replace(
    /[\s()<>\\"'`]/g,
    (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

interface Context {
  /** Inside a table cell: `|` is escaped by the row, so escapes of it are left to the row. */
  inTable?: boolean;
}

function inline(tokens: readonly Token[] | undefined, context: Context = {}): string {
  return (tokens ?? []).map((token) => inlineToken(token, context)).join('');
}

function inlineToken(token: Token, context: Context): string {
  switch (token.type) {
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens, context) : text(t.raw);
    }
    case 'escape': {
      const ch = (token as Tokens.Escape).text;
      if (ch === '<') return '&lt;';
      if (ch === '&') return '&amp;';
      return ch === '|' && context.inTable ? '|' : `\\${ch}`;
    }
    case 'html':
      return literal((token as Tokens.HTML).raw);
    case 'link': {
      const t = token as Tokens.Link;
      const label = inline(t.tokens, context);
      const href = safeHref(t.href);
      return href ? `[${label}](${destination(href)})` : label;
    }
    case 'image': {
      const t = token as Tokens.Image;
      const label = literal(`image: ${t.text || 'untitled'}`);
      const href = safeHref(t.href);
      return href ? `[${label}](${destination(href)})` : label;
    }
    case 'strong':
    case 'em':
    case 'del': {
      const t = token as Tokens.Strong | Tokens.Em | Tokens.Del;
      // The delimiters as written (`**` or `__`, `*` or `_`, `~~`), so emphasis opens and closes as before.
      const delimiter = t.raw.match(/^(\*+|_+|~+)/)?.[0] ?? '';
      return `${delimiter}${inline(t.tokens, context)}${delimiter}`;
    }
    case 'codespan':
    case 'br':
      return token.raw;
    default:
      return literal(token.raw);
  }
}

export interface InertOptions {
  /** Added to every heading's level (capped at 6), so an answer's headings sit under the report's own. */
  headingOffset?: number;
}

function blocks(tokens: readonly Token[], options: InertOptions): string[] {
  return tokens.flatMap((token) => {
    const out = block(token, options);
    return out === undefined ? [] : [out];
  });
}

/** Indents every line after the first by `width` spaces (list item content under its marker). */
function indentRest(text: string, width: number): string {
  const pad = ' '.repeat(width);
  return text
    .split('\n')
    .map((line, i) => (i === 0 || line === '' ? line : pad + line))
    .join('\n');
}

function block(token: Token, options: InertOptions): string | undefined {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      // Blank lines are put back between blocks; a reference's target is already on the links that use it.
      return undefined;
    case 'paragraph':
      return inline((token as Tokens.Paragraph).tokens);
    case 'text': {
      const t = token as Tokens.Text;
      return t.tokens ? inline(t.tokens) : text(t.raw);
    }
    case 'heading': {
      const t = token as Tokens.Heading;
      const level = Math.min(6, t.depth + (options.headingOffset ?? 0));
      return `${'#'.repeat(level)} ${inline(t.tokens).replace(/\n/g, ' ')}`;
    }
    case 'code': {
      const t = token as Tokens.Code;
      const language =
        (t.lang ?? '')
          .trim()
          .split(/\s+/)[0]
          ?.replace(/[^\w+#.-]/g, '') ?? '';
      return codeBlock(t.text, language);
    }
    case 'hr':
      return '---';
    case 'blockquote': {
      const inner = blocks((token as Tokens.Blockquote).tokens, options).join('\n\n');
      return inner
        .split('\n')
        .map((line) => (line ? `> ${line}` : '>'))
        .join('\n');
    }
    case 'list': {
      const t = token as Tokens.List;
      const start = typeof t.start === 'number' ? t.start : 1;
      const items = t.items.map((item, i) => {
        const marker = t.ordered ? `${start + i}.` : '-';
        const box = item.task ? `[${item.checked ? 'x' : ' '}] ` : '';
        const content = blocks(item.tokens, options).join(item.loose ? '\n\n' : '\n');
        return `${marker} ${box}${indentRest(content, marker.length + 1)}`;
      });
      return items.join(t.loose ? '\n\n' : '\n');
    }
    case 'table': {
      const t = token as Tokens.Table;
      const cell = (c: Tokens.TableCell) => inline(c.tokens, { inTable: true }).replace(/\|/g, '\\|');
      const row = (cells: readonly Tokens.TableCell[]) => `| ${cells.map(cell).join(' | ')} |`;
      const rule = t.align.map((a) =>
        a === 'center' ? ':---:' : a === 'left' ? ':---' : a === 'right' ? '---:' : '---',
      );
      return [row(t.header), `| ${rule.join(' | ')} |`, ...t.rows.map(row)].join('\n');
    }
    case 'html':
      // Raw HTML as it was written, in a code block: readable, and never parsed.
      return codeBlock((token as Tokens.HTML).raw.replace(/\n+$/, ''), 'html');
    default:
      return codeBlock(token.raw.replace(/\n+$/, ''));
  }
}

/** `markdown` (untrusted) as Markdown with the same formatting that renders inert (see the module comment). */
export function inertMarkdown(markdown: string, options: InertOptions = {}): string {
  return blocks(Lexer.lex(markdown, { gfm: true }), options).join('\n\n');
}

/**
 * What in `markdown` would be live when a viewer renders it as GFM: raw HTML, images, and links to
 * anything but http(s) or mail. Empty when it is inert.
 */
export function inertProblems(markdown: string): string[] {
  const problems: string[] = [];
  const visit = (tokens: readonly Token[] | undefined) => {
    for (const token of tokens ?? []) {
      if (token.type === 'html') problems.push(`raw HTML: ${token.raw.slice(0, 40)}`);
      if (token.type === 'image') problems.push(`an image: ${token.raw.slice(0, 40)}`);
      if (token.type === 'link' && !safeHref((token as Tokens.Link).href))
        problems.push(`a link to ${(token as Tokens.Link).href.slice(0, 40)}`);
      // Where child tokens hang: inline ones, a list's items, a table's cells.
      const t = token as {
        tokens?: Token[];
        items?: Tokens.ListItem[];
        header?: Tokens.TableCell[];
        rows?: Tokens.TableCell[][];
      };
      visit(t.tokens);
      for (const item of t.items ?? []) visit(item.tokens);
      for (const cell of [...(t.header ?? []), ...(t.rows ?? []).flat()]) visit(cell.tokens);
    }
  };
  visit(Lexer.lex(markdown, { gfm: true }));
  return problems;
}
