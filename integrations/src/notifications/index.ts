export { parseSmtpConfig, NotifierConfigError, type SmtpConfig } from './config.js';
export { createOutboxNotifier, type EmailDelivery, type Notification, type Notifier } from './notifier.js';
export { createSmtpNotifier, type SmtpNotifierDeps } from './smtp-notifier.js';
