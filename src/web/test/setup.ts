import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { resetRateLimit } from '../lib/rate-limit-store.ts';

// Test files share a worker's modules (vite.config.ts: not isolated, for speed): what a module keeps for the
// whole page, and the page's storage, start empty in each file as they would in a fresh page.
resetRateLimit();
localStorage.clear();
sessionStorage.clear();

afterEach(() => cleanup());
