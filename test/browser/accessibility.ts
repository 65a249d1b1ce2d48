/**
 * Focused accessibility checks of a console page in Chromium, in place of a rule engine the
 * project does not carry:
 *
 * - every control has an accessible name: Chromium's own accessibility tree (CDP
 *   Accessibility.getFullAXTree), the names a screen reader announces, for each button, text box,
 *   select, check box and link on the page;
 * - text contrast: each visible text's colour against the background it is drawn on (the first
 *   opaque one up its ancestors, partly transparent ones composited), at least 4.5:1, or 3:1 for
 *   large text (WCAG 2.1 AA); disabled controls are exempt, as WCAG exempts them;
 * - keyboard: no positive tabindex (the tab order is the reading order), and each Tab stop shows
 *   where the focus is (an outline of at least 2 px while focused, 3:1 against the background
 *   around it, WCAG 1.4.11).
 */
import type { Page } from 'playwright-core';

/** Roles of things an operator acts on: each needs a name to be told apart. */
const controlRoles = new Set([
  'button',
  'textbox',
  'combobox',
  'listbox',
  'checkbox',
  'radio',
  'link',
  'spinbutton',
  'searchbox',
  'switch',
]);

/** Controls in the accessibility tree without a name, as `role (dom node id)`. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send('Accessibility.enable');
    const { nodes } = await session.send('Accessibility.getFullAXTree');
    const unnamed: string[] = [];
    for (const node of nodes) {
      const role = String(node.role?.value ?? '');
      if (node.ignored || !controlRoles.has(role)) continue;
      const name = String(node.name?.value ?? '').trim();
      if (name === '') {
        const html =
          node.backendDOMNodeId === undefined
            ? ''
            : ((await session.send('DOM.getOuterHTML', { backendNodeId: node.backendDOMNodeId }).catch(() => ({ outerHTML: '' })))
                .outerHTML as string);
        unnamed.push(`${role}: ${html.slice(0, 120)}`);
      }
    }
    return unnamed;
  } finally {
    await session.detach();
  }
}

/** The controls the accessibility tree names, as `role "name"`, to assert on what a screen reader hears. */
export async function namedControls(page: Page): Promise<string[]> {
  const session = await page.context().newCDPSession(page);
  try {
    await session.send('Accessibility.enable');
    const { nodes } = await session.send('Accessibility.getFullAXTree');
    return nodes
      .filter((node) => !node.ignored && controlRoles.has(String(node.role?.value ?? '')))
      .map((node) => `${String(node.role?.value)} "${String(node.name?.value ?? '').trim()}"`);
  } finally {
    await session.detach();
  }
}

export interface ContrastFailure {
  text: string;
  color: string;
  background: string;
  ratio: number;
  needed: number;
}

type Rgba = [number, number, number, number];

function parseColour(text: string): Rgba {
  const parts = /rgba?\(([^)]+)\)/
    .exec(text)?.[1]
    ?.split(/[\s,/]+/)
    .filter(Boolean)
    .map(Number);
  if (!parts || parts.length < 3) throw new Error(`a colour the contrast check cannot read: ${text}`);
  return [parts[0]!, parts[1]!, parts[2]!, parts[3] ?? 1];
}

/** `top` drawn over the opaque `bottom`. */
function over(top: Rgba, bottom: Rgba): Rgba {
  const a = top[3];
  return [top[0] * a + bottom[0] * (1 - a), top[1] * a + bottom[1] * (1 - a), top[2] * a + bottom[2] * (1 - a), 1];
}

/** The colour the backgrounds (innermost first, up to an opaque one) make together, over white. */
function backgroundOf(backgrounds: readonly string[]): Rgba {
  let back: Rgba = [255, 255, 255, 1];
  for (const layer of backgrounds.map(parseColour).reverse()) if (layer[3] > 0) back = over(layer, back);
  return back;
}

/** WCAG 2.1 relative luminance. */
function luminance([r, g, b]: Rgba): number {
  const channel = (value: number) => {
    const c = value / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

export function contrastRatio(a: Rgba, b: Rgba): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

/** What the page tells of one visible text: its colour, size, weight and the backgrounds up to the first opaque one. */
interface DrawnText {
  text: string;
  color: string;
  fontSize: number;
  fontWeight: number;
  /** Innermost first. */
  backgrounds: string[];
}

/**
 * Texts below the contrast they need. `within`: a CSS selector of the part to check (an open modal
 * dialog covers the rest of the page); default the whole body.
 */
export async function lowContrast(page: Page, within = 'body'): Promise<ContrastFailure[]> {
  // Collected in the page, judged here: code sent to the page may hold no named helpers (the
  // test's compiler wraps them in a function the page does not have).
  const drawn: DrawnText[] = await page.evaluate((selector) => {
    const root = document.querySelector(selector);
    if (!root) throw new Error(`nothing matches ${selector}`);
    const found: DrawnText[] = [];
    for (const element of [root, ...root.querySelectorAll('*')]) {
      const text = [...element.childNodes]
        .filter((node) => node.nodeType === Node.TEXT_NODE)
        .map((node) => node.textContent ?? '')
        .join('')
        .trim();
      if (text === '') continue;
      const box = element.getBoundingClientRect();
      const style = getComputedStyle(element);
      if (box.width === 0 || box.height === 0 || style.visibility !== 'visible') continue;
      // WCAG 1.4.3 exempts inactive controls.
      if (element.closest(':disabled')) continue;
      const backgrounds: string[] = [];
      for (let at: Element | null = element; at; at = at.parentElement) {
        const colour = getComputedStyle(at).backgroundColor;
        backgrounds.push(colour);
        if (/^rgb\(/.test(colour)) break;
      }
      found.push({
        text: text.slice(0, 60),
        color: style.color,
        fontSize: Number.parseFloat(style.fontSize),
        fontWeight: Number(style.fontWeight),
        backgrounds,
      });
    }
    return found;
  }, within);
  const failures: ContrastFailure[] = [];
  for (const text of drawn) {
    const back = backgroundOf(text.backgrounds);
    const fore = over(parseColour(text.color), back);
    const large = text.fontSize >= 24 || (text.fontSize >= 18.66 && text.fontWeight >= 700);
    const needed = large ? 3 : 4.5;
    const ratio = contrastRatio(fore, back);
    if (ratio < needed)
      failures.push({
        text: text.text,
        color: text.color,
        background: `rgb(${back.slice(0, 3).map(Math.round).join(', ')})`,
        ratio,
        needed,
      });
  }
  return failures;
}

/** Elements with a positive tabindex, which would take them out of the reading order. */
export async function positiveTabIndexes(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll('[tabindex]')]
      .filter((element) => (element as HTMLElement).tabIndex > 0)
      .map((element) => element.outerHTML.slice(0, 80)),
  );
}

/** What has the focus: its tag and accessible text, whether it is inside `within`, and whether its focus shows. */
export interface FocusStop {
  element: string;
  inside: boolean;
  visible: boolean;
}

/** The element with the focus now (see FocusStop). */
export async function focusStop(page: Page, within = 'body'): Promise<FocusStop> {
  const seen = await page.evaluate((selector) => {
    const element = document.activeElement;
    if (!element || element === document.body) return undefined;
    const style = getComputedStyle(element);
    const label =
      element.getAttribute('aria-label') ??
      (element as HTMLInputElement).labels?.[0]?.textContent?.trim() ??
      element.textContent?.trim().slice(0, 40) ??
      '';
    // The outline is drawn outside the element (outline-offset): over its parent's background.
    const backgrounds: string[] = [];
    for (let at: Element | null = element.parentElement; at; at = at.parentElement) {
      const colour = getComputedStyle(at).backgroundColor;
      backgrounds.push(colour);
      if (/^rgb\(/.test(colour)) break;
    }
    return {
      element: `${element.tagName.toLowerCase()} ${JSON.stringify(label)}`,
      inside: document.querySelector(selector)?.contains(element) ?? false,
      outlineStyle: style.outlineStyle,
      outlineWidth: Number.parseFloat(style.outlineWidth),
      outlineColor: style.outlineColor,
      backgrounds,
    };
  }, within);
  if (seen === undefined) return { element: 'body', inside: false, visible: false };
  // WCAG 1.4.11: a focus indicator needs 3:1 against what is next to it.
  const visible =
    seen.outlineStyle !== 'none' &&
    seen.outlineWidth >= 2 &&
    contrastRatio(parseColour(seen.outlineColor), backgroundOf(seen.backgrounds)) >= 3;
  return { element: seen.element, inside: seen.inside, visible };
}

/** Presses Tab `count` times from where the focus is, answering each stop. */
export async function tabStops(page: Page, count: number, within = 'body'): Promise<FocusStop[]> {
  const stops: FocusStop[] = [];
  for (let i = 0; i < count; i += 1) {
    await page.keyboard.press('Tab');
    stops.push(await focusStop(page, within));
  }
  return stops;
}

/**
 * Everything the checks find on the page as it is, as one list of findings (empty when it passes):
 * unnamed controls, low contrast, positive tabindex.
 */
export async function accessibilityFindings(page: Page, within = 'body'): Promise<string[]> {
  const findings: string[] = [];
  for (const control of await unnamedControls(page)) findings.push(`no accessible name: ${control}`);
  for (const failure of await lowContrast(page, within))
    findings.push(
      `contrast ${failure.ratio.toFixed(2)}:1 < ${failure.needed}:1 for ${JSON.stringify(failure.text)} (${failure.color} on ${failure.background})`,
    );
  for (const element of await positiveTabIndexes(page)) findings.push(`positive tabindex: ${element}`);
  return findings;
}
