export { webhookKeys } from './api/webhooks.ts';
export { WebhooksSection } from './components/webhooks-section.tsx';
