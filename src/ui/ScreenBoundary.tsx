import { Component, type ComponentChildren } from 'preact';

/**
 * One screen that throws (a record it cannot show, a bug) shows what went wrong in its place; the header,
 * the navigation and every other screen keep working. Keyed by route, so navigating away resets it.
 */
export class ScreenBoundary extends Component<
  { name: string; children: ComponentChildren },
  { error?: Error }
> {
  override state: { error?: Error } = {};

  static override getDerivedStateFromError(error: unknown): { error: Error } {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: unknown): void {
    console.error(`the ${this.props.name} screen failed`, error);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section class="alert" data-kind="error" role="alert" data-testid="screen-error">
        <p>
          This screen ({this.props.name}) failed: {error.message}. The other screens still work.
        </p>
        <button type="button" onClick={() => this.setState({ error: undefined })}>
          Try again
        </button>
      </section>
    );
  }
}
