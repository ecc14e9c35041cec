import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app.tsx';
import { loadSearchRoute } from './app/search-chunk.ts';
import './styles.css';

// A cold load of the search screen fetches its code alongside the session check, not after it, so the
// screen appears in one step. (A failure here is retried when the route asks for it.)
if (window.location.pathname.startsWith('/search')) void loadSearchRoute().catch(() => {});

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');
createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
