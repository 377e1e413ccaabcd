import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireContext } from '../../http/auth.js';
import type { AppServices } from '../../services/index.js';
import { stepToWire } from '../../services/runs/run-wire.js';
import { StepResponse } from '../../contracts/v1/steps.js';
import { errorResponses } from './shared/error-responses.js';

const StepTransactionParams = z.object({ step_id: z.string(), transaction_id: z.string() });

/** `PATCH /v1/steps/{step_id}/transaction/{transaction_id}` (spec 001 §7): which ledger entry paid for a step. */
export function stepTransactionRoutes(services: AppServices): FastifyPluginAsyncZod {
  return async (app) => {
    app.patch(
      '/steps/:step_id/transaction/:transaction_id',
      {
        schema: {
          tags: ['steps'],
          summary: 'Record the transaction that paid for a step',
          params: StepTransactionParams,
          response: { 200: StepResponse, ...errorResponses(404, 422) },
        },
      },
      async (request) => {
        const { step_id: stepId, transaction_id: transactionId } = request.params;
        return stepToWire(await services.billing.linkStepTransaction(requireContext(request).organizationId, stepId, transactionId));
      },
    );
  };
}
