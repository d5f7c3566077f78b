import {
	countExecutions,
	firstOutputOf,
	listExecutions,
	readExecution,
	waitFor,
	type StoredExecution,
} from '../../scripts/n8n/executions';
import type { E2eContext } from './context';
import { assertEqual } from './harness';

/** How long the sandbox's delivery of an event, and the run it starts, may take. */
export const EVENT_TIMEOUT_MS = 30_000;

type TriggerItem = Record<string, unknown>;
/** One delivery attempt as the sandbox recorded it. */
type RecordedDelivery = Record<string, unknown>;

/**
 * The runs an event starts in one active workflow, told apart by the first item its trigger node passed on; and
 * the sandbox's deliveries that start them.
 */
export class TriggerRuns {
	constructor(
		private readonly context: E2eContext,
		readonly workflowId: string,
		private readonly triggerNode: string,
	) {}

	/** The finished runs whose trigger item `matches` accepts. */
	async matching(matches: (item: TriggerItem) => boolean): Promise<StoredExecution[]> {
		const { rest } = this.context;
		const summaries = await listExecutions(rest, this.workflowId);
		const executions = await Promise.all(
			summaries
				.filter((summary) => summary.status !== 'running' && summary.status !== 'new')
				.map((summary) => readExecution(rest, summary.id)),
		);
		return executions.filter((execution) => {
			const [item] = firstOutputOf(execution, this.triggerNode);
			return item !== undefined && matches(item);
		});
	}

	async waitForRun(
		what: string,
		matches: (item: TriggerItem) => boolean,
	): Promise<StoredExecution> {
		return waitFor(`a run of ${this.workflowId} for ${what}`, EVENT_TIMEOUT_MS, async () => {
			const [run] = await this.matching(matches);
			return run;
		});
	}

	/** The sandbox's first delivery attempt `matches` accepts, once there is one. */
	async waitForDelivery(
		what: string,
		matches: (attempt: RecordedDelivery) => boolean,
	): Promise<RecordedDelivery> {
		return waitFor(`the sandbox to deliver ${what}`, EVENT_TIMEOUT_MS, async () =>
			(await this.context.sandbox.webhookDeliveries()).find(matches),
		);
	}

	/** What `post` sends must start no run: the runs are counted before, and a second after. */
	async assertStartsNothing(post: () => Promise<void>, what: string): Promise<void> {
		// Counted by n8n, not from its list: the list's first page holds 20, so past that the count would never move.
		const count = () => countExecutions(this.context.rest, this.workflowId);
		const before = await count();
		await post();
		await new Promise((resolve) => setTimeout(resolve, 1000));
		assertEqual(await count(), before, what);
	}
}
