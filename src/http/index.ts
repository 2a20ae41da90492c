export { HttpClient, type HttpClientOptions, type HttpOutcome, type HttpRequest, type HttpResponse } from './client.js';
export { createDispatcher, type DispatcherOptions } from './dispatcher.js';
export { HTTP_FAILURE_REASONS, type HttpFailureReason } from './classify.js';
export { parseRetryAfter } from './retryAfter.js';
