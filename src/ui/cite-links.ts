/**
 * An answer's passage citations made into buttons, after its markdown is rendered: only text nodes are
 * read (never the HTML), a citation that names no passage sent stays text, and each button is made with
 * `textContent`, so nothing of the answer becomes markup. Code, links and buttons are left as they are.
 */
import { type CiteToken, findCitations } from '../attachments/passage-cites.ts';

const LEFT_ALONE = 'code, pre, a, button';

/** The class of a citation's button (the answer's click handler finds it by this). */
export const CITE_LINK = 'cite-link';

/**
 * Wraps each citation in `root`'s text that `label` names (a description of the passages it cites, for
 * the button's accessible name) in a button showing the citation as written, which calls `open`. Safe to
 * call again on the same tree: a citation already a button is inside one and is skipped.
 */
export function linkCitations(
  root: HTMLElement,
  label: (token: CiteToken) => string | undefined,
  open: (token: CiteToken) => void,
): void {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  const nodes: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (!node.parentElement?.closest(LEFT_ALONE)) nodes.push(node as Text);
  }
  for (const node of nodes) {
    const text = node.data;
    const pieces: (Node | string)[] = [];
    let at = 0;
    for (const token of findCitations(text)) {
      const name = label(token);
      if (name === undefined) continue;
      if (token.start > at) pieces.push(text.slice(at, token.start));
      const button = root.ownerDocument.createElement('button');
      button.type = 'button';
      button.className = CITE_LINK;
      button.textContent = token.text;
      button.setAttribute('aria-label', `${token.text}: open ${name}`);
      button.setAttribute('aria-haspopup', 'dialog');
      button.addEventListener('click', () => open(token));
      pieces.push(button);
      at = token.end;
    }
    if (pieces.length === 0) continue;
    if (at < text.length) pieces.push(text.slice(at));
    node.replaceWith(...pieces);
  }
}
