// Watched service providers (`watch.services`, keyed by `provider`): every service the provider
// registered (getServices, the whole registry read once per network per interval), active or not,
// gone from the registry (what was seen is kept on disk by the kind's runtime), and with
// probeEndpoint a GET of each active service's endpoint. Alerts: inactive, missing, endpoint down.
import * as z from 'zod';
import { SERVICE_ALERTS } from '../../alerting/rules/definitions/watchServices.js';
import { watchServicesProbe } from '../../probes/watch/services.js';
import { defineWatchKind } from '../kind.js';
import { SERVICE_PANELS } from '../panels/service.js';
import { SERVICE_FAMILIES } from '../serviceFamilies.js';
import { serviceRuntime } from '../serviceRuntime.js';
import { providerState, providerView, SERVICES_READ } from '../serviceViews.js';
import type { WatchedProviderView } from '../types.js';

export const serviceKind = defineWatchKind<WatchedProviderView>({
  kind: 'provider',
  list: 'services',
  addressField: 'provider',
  description:
    'Services registered on chain by a provider address (getServices): registered, active, endpoint answering.',
  fields: {
    type: z
      .string({ error: 'type must be a service type (a string)' })
      .min(1)
      .max(256)
      .optional()
      .meta({ description: 'Only services of this type (service_type).' }),
    probeEndpoint: z
      .boolean({ error: 'probeEndpoint must be true or false' })
      .optional()
      .meta({ description: "GET each active service's registered endpoint (http/https only) once per interval." }),
    allowPrivateEndpoints: z.boolean({ error: 'allowPrivateEndpoints must be true or false' }).optional().meta({
      description:
        'Also probe endpoints at loopback, private, link-local, CGNAT or metadata addresses (refused otherwise).',
    }),
  },
  resolve: (s) => ({
    ...(typeof s.type === 'string' && { serviceType: s.type }),
    ...(s.probeEndpoint === true && { probeEndpoint: true }),
    ...(s.allowPrivateEndpoints === true && { allowPrivateEndpoints: true }),
  }),
  reads: {},
  networkReads: { [SERVICES_READ]: watchServicesProbe },
  runtime: () => serviceRuntime(),
  view: providerView,
  families: SERVICE_FAMILIES,
  state: providerState,
  alerts: SERVICE_ALERTS,
  panels: SERVICE_PANELS,
});
