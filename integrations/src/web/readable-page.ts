import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

/** Elements that carry no reading content: dropped before the page becomes markdown. */
const NOISE = ['script', 'style', 'noscript', 'template', 'iframe', 'svg', 'canvas', 'form', 'button', 'select', 'nav', 'footer'] as const;

function markdownConverter(): TurndownService {
  const converter = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  converter.remove([...NOISE]);
  return converter;
}

/** The plain text of an HTML fragment (`Tom &amp; <b>Jerry</b>` → `Tom & Jerry`). */
export function htmlFragmentText(html: string): string {
  const { document } = parseHTML(`<!doctype html><html><body>${html}</body></html>`);
  return (document.body.textContent ?? '').trim();
}

/**
 * A page's readable content as markdown: the article Readability finds (the main text, without navigation, ads and
 * sidebars), or the whole body when it finds none, with its title. `url` resolves the page's relative links.
 */
export function readablePage(html: string, url: string): { title: string; markdown: string } {
  const { document } = parseHTML(html);
  // Readability resolves relative links against the document's base; a parsed string has none of its own.
  if (!document.querySelector('base') && document.head) {
    const base = document.createElement('base');
    base.setAttribute('href', url);
    document.head.appendChild(base);
  }
  const pageTitle = (document.querySelector('title')?.textContent ?? '').trim();
  // A fragment without <html> or <body> leaves linkedom's body empty; turndown parses the string itself then.
  const bodyHtml = document.body?.innerHTML?.trim() ? document.body.innerHTML : html;
  const article = new Readability(document as unknown as ConstructorParameters<typeof Readability>[0], { charThreshold: 200 }).parse();
  const converter = markdownConverter();
  const content = article?.content && (article.textContent ?? '').trim().length > 0 ? article.content : bodyHtml;
  const markdown = converter.turndown(content).replace(/\n{3,}/g, '\n\n').trim();
  return { title: (article?.title ?? pageTitle).trim() || pageTitle, markdown };
}
