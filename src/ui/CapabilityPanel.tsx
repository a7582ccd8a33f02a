import { Fragment } from 'preact';
import { describeCapabilities } from '../capabilities/describe.ts';
import type { Capabilities } from '../shared/capabilities.ts';

/**
 * What this device can do for on-device planning. `data-ready` turns true once the probe has answered;
 * the test hooks (`capabilities`, `webgpu-unavailable`) are relied on by test/browser/capabilities.spec.ts.
 */
export function CapabilityPanel({
  caps,
  headingLevel = 2,
}: {
  caps: Capabilities | undefined;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section
      class="card"
      aria-labelledby="caps-title"
      data-testid="capabilities"
      data-ready={caps ? 'true' : 'false'}
      aria-busy={caps ? 'false' : 'true'}
    >
      <Heading id="caps-title">This device</Heading>
      {!caps && <p class="muted">Checking WebGPU…</p>}
      {caps && !caps.webgpu.available && (
        <p class="alert" data-kind="warn" role="alert" data-testid="webgpu-unavailable">
          WebGPU is unavailable: {caps.webgpu.message}
        </p>
      )}
      {caps && (
        <dl class="kv">
          {describeCapabilities(caps).map(([label, value]) => (
            <Fragment key={label}>
              <dt>{label}</dt>
              <dd>{value}</dd>
            </Fragment>
          ))}
        </dl>
      )}
    </section>
  );
}
