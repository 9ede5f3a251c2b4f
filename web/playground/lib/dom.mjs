// A small element builder for the demos: el('button', {class: 'primary', onclick}, 'Run').
// Attributes starting with "on" become listeners; children are nodes or strings.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') node.addEventListener(k.slice(2), v);
    else if (k === 'class') node.className = v;
    else if (k === 'text') node.textContent = v;
    else if (k in node && typeof v !== 'string') node[k] = v;
    else node.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

// A stylesheet beside a demo module, added once.
export function useStyles(url) {
  const href = String(url);
  if (![...document.querySelectorAll('link[rel=stylesheet]')].some((l) => l.href === href)) {
    document.head.append(el('link', {rel: 'stylesheet', href}));
  }
}
