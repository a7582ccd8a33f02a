/**
 * Worker answers are untrusted text. They become HTML only here: marked renders markdown with raw HTML
 * shown as text, and DOMPurify then removes anything active. Images are rendered as links (an <img> would
 * make a request by itself), links open in a new tab with rel="noopener noreferrer", and only http(s) and
 * mailto URLs survive. Loaded lazily: the page shows plain text until this chunk arrives.
 */
import DOMPurify from 'dompurify';
import hljs from 'highlight.js/lib/core';
import bash from 'highlight.js/lib/languages/bash';
import css from 'highlight.js/lib/languages/css';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import rust from 'highlight.js/lib/languages/rust';
import sql from 'highlight.js/lib/languages/sql';
import typescript from 'highlight.js/lib/languages/typescript';
import xml from 'highlight.js/lib/languages/xml';
import { Marked } from 'marked';
import { SAFE_URL, safeHref } from '../app/safe-url.ts';

hljs.registerLanguage('bash', bash);
hljs.registerLanguage('css', css);
hljs.registerLanguage('javascript', javascript);
hljs.registerLanguage('json', json);
hljs.registerLanguage('python', python);
hljs.registerLanguage('rust', rust);
hljs.registerLanguage('sql', sql);
hljs.registerLanguage('typescript', typescript);
hljs.registerLanguage('xml', xml);
hljs.registerAliases(['js', 'jsx', 'mjs'], { languageName: 'javascript' });
hljs.registerAliases(['ts', 'tsx'], { languageName: 'typescript' });
hljs.registerAliases(['sh', 'shell', 'zsh'], { languageName: 'bash' });
hljs.registerAliases(['py'], { languageName: 'python' });
hljs.registerAliases(['html', 'svg'], { languageName: 'xml' });

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ESCAPES[ch]!);
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    // Raw HTML in an answer is shown, never parsed.
    html({ text }) {
      return escapeHtml(text);
    },
    image({ href, text }) {
      const url = safeHref(href);
      const label = `image: ${text || 'untitled'}`;
      return url ? `<a href="${escapeHtml(url)}">[${escapeHtml(label)}]</a>` : `[${escapeHtml(label)}]`;
    },
    code({ text, lang }) {
      const language = (lang ?? '').trim().split(/\s+/)[0]?.toLowerCase() ?? '';
      let body: string;
      if (language && hljs.getLanguage(language)) {
        body = hljs.highlight(text, { language, ignoreIllegals: true }).value;
      } else {
        body = escapeHtml(text);
      }
      const cls = language
        ? ` class="hljs language-${escapeHtml(language.replace(/[^a-z0-9_+-]/g, ''))}"`
        : ' class="hljs"';
      return `<pre><code${cls}>${body}</code></pre>\n`;
    },
  },
});

const purify = DOMPurify(globalThis.window);

purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = safeHref(node.getAttribute('href'));
    if (href) {
      node.setAttribute('href', href);
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    } else {
      node.removeAttribute('href');
    }
  }
});

const PURIFY_CONFIG = {
  // Nothing that loads, embeds or runs; no forms; no inline styles (CSS can fetch via url()).
  FORBID_TAGS: [
    'img',
    'svg',
    'math',
    'style',
    'script',
    'iframe',
    'frame',
    'object',
    'embed',
    'form',
    'input',
    'button',
    'textarea',
    'select',
    'video',
    'audio',
    'source',
    'picture',
    'link',
    'meta',
    'base',
    'template',
  ],
  FORBID_ATTR: ['style', 'srcset', 'src', 'action', 'formaction', 'background', 'poster', 'ping'],
  ALLOWED_URI_REGEXP: SAFE_URL,
  ALLOW_DATA_ATTR: false,
};

/** Markdown → sanitized HTML, safe to assign to innerHTML. */
export function renderMarkdown(markdown: string): string {
  const html = marked.parse(markdown, { async: false });
  return purify.sanitize(html, PURIFY_CONFIG) as string;
}
