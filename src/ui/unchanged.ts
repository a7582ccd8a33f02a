import { Component, type FunctionComponent, h } from 'preact';

/** Whether two props objects hold the same values, each compared by identity. */
function sameProps(a: object, b: object): boolean {
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => key !== 'children' && Object.is(left[key], right[key]));
}

/**
 * `render`, rendered again only when a prop changes (by identity): what preact/compat's `memo` does,
 * without compat, whose global option hooks would slow every element of the page.
 */
export function renderedOnChange<P extends object>(render: FunctionComponent<P>) {
  class Unchanged extends Component<P> {
    /** The component it wraps, rendered only when a prop changed (a test counts its renders by it). */
    static readonly renders = render;
    override shouldComponentUpdate(next: P): boolean {
      return !sameProps(this.props, next);
    }
    override render(props: P) {
      return h(render, props);
    }
  }
  return Unchanged as unknown as FunctionComponent<P> & { readonly renders: FunctionComponent<P> };
}
