import { describeCapabilities } from './capabilities/describe.ts';
import { probeCapabilities } from './capabilities/probe.ts';

// First page: the capability check. The full app (#6) replaces this shell.
async function main(): Promise<void> {
  const root = document.getElementById('app')!;
  root.innerHTML = '';
  const heading = document.createElement('h1');
  heading.textContent = 'Baton';
  const section = document.createElement('section');
  section.setAttribute('aria-labelledby', 'caps-title');
  section.dataset.testid = 'capabilities';
  section.setAttribute('aria-busy', 'true');
  const title = document.createElement('h2');
  title.id = 'caps-title';
  title.textContent = 'This device';
  section.append(title, document.createTextNode('Checking WebGPU…'));
  root.append(heading, section);

  const caps = await probeCapabilities();
  section.lastChild?.remove();
  if (!caps.webgpu.available) {
    const warning = document.createElement('p');
    warning.setAttribute('role', 'alert');
    warning.dataset.testid = 'webgpu-unavailable';
    warning.textContent = `WebGPU is unavailable: ${caps.webgpu.message}`;
    section.append(warning);
  }
  const table = document.createElement('dl');
  for (const [label, value] of describeCapabilities(caps)) {
    const dt = document.createElement('dt');
    dt.textContent = label;
    const dd = document.createElement('dd');
    dd.textContent = value;
    table.append(dt, dd);
  }
  section.append(table);
  section.dataset.ready = 'true';
  section.setAttribute('aria-busy', 'false');
  (globalThis as { __batonCapabilities?: unknown }).__batonCapabilities = caps;
}

void main();
