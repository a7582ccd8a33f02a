/// <reference lib="webworker" />
// Egress's network thread: it fetches what egress on the page has checked and recorded, and hands the
// answers back a window at a time (src/shared/fetch-relay.ts).
import { serveFetches } from '../src/shared/fetch-relay.ts';

serveFetches(self as unknown as DedicatedWorkerGlobalScope, fetch.bind(self));
