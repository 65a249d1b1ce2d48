/**
 * The console's names for the API's types. Every shape comes from openapi-types.ts, generated
 * from the OpenAPI document the runtime publishes (`node bin/console-api-types.js`); this file
 * only names parts of them — an operation's answer, a field's values — so a change of the API
 * reaches the console's code through the compiler, never through a copy kept in step by hand.
 */
import type { FieldDescription, Operations, QueueItem } from './openapi-types.js';

export type * from './openapi-types.js';

/** The JSON answer of an operation's success. */
export type Answer<K extends keyof Operations> = Operations[K]['answer'];
/** The query parameters of an operation. */
export type Query<K extends keyof Operations> = Operations[K]['query'];

export type QueueStatus = QueueItem['Status'];
export type StartType = QueueItem['StartType'];
export type QueueError = QueueItem['Errors'][number];
export type AddActionBody = Operations['AddAction']['body'];
export type QueueFilter = Query<'ListQueueItems'>;

export type ConsoleOverview = Answer<'consoleOverview'>;
export type DefinitionsAnswer = Answer<'listDefinitions'>;
export type DefinitionKind = keyof DefinitionsAnswer['definitions'];

export type FieldType = FieldDescription['type'];
export type ReadAnswer = Answer<'RunConnectionGetData'>;
export type QueryAnswer = Answer<'RunConnectionGetQueryData'>;

export type WebhookLogPage = Answer<'webhookLog'>;
export type WebhookLogFilter = Query<'webhookLog'>;
export type WebhookReplay = Answer<'replayWebhookLogEntry'>;
