import { FIXED_SETTINGS } from '../../../scripts/bench/inN8n/cases';
import {
	FIRST,
	fixedKey,
	samplesPerRepetition,
	SECOND,
	SMALL_SIZES,
	smallBranches,
	secondExecutionWorkflow,
	smallRounds,
	subWorkflowId,
	type SmallBranch,
} from '../../../scripts/bench/inN8n/smallCampaigns';

const CASES = [...FIXED_SETTINGS.map(fixedKey), FIRST, SECOND];
const REPETITIONS = [0, 1, 2, 3, 4, 5];
const API = { baseUrl: 'http://127.0.0.1:1', apiKey: 'key' };

const ofSize = (branches: SmallBranch[], size: number) =>
	branches.filter((branch) => branch.size === size);
const isAutomatic = (branch: SmallBranch) => branch.caseKey === FIRST || branch.caseKey === SECOND;

describe('small campaigns: the branches of one repetition', () => {
	it('takes five samples of 100 messages per repetition, three of 500 and one of 1,000', () => {
		expect(SMALL_SIZES.map(samplesPerRepetition)).toEqual([5, 3, 1]);
	});

	it.each(REPETITIONS)(
		'runs each case samplesPerRepetition times per size, with keys and run tags of its own (repetition %i)',
		(repetition) => {
			const branches = smallBranches('fast', repetition, 'stamp');
			for (const size of SMALL_SIZES) {
				for (const caseKey of CASES)
					expect(
						ofSize(branches, size).filter((branch) => branch.caseKey === caseKey),
					).toHaveLength(samplesPerRepetition(size));
			}
			expect(new Set(branches.map((branch) => branch.key)).size).toBe(branches.length);
			expect(new Set(branches.map((branch) => branch.runTag)).size).toBe(branches.length);
			expect(branches.every((branch) => branch.count === branch.size)).toBe(true);
		},
	);

	it.each(REPETITIONS)(
		'runs one size after another, round after round, each round every case once (repetition %i)',
		(repetition) => {
			const branches = smallBranches('fast', repetition, 'stamp');
			const sizesInTurn = branches
				.map((branch) => branch.size)
				.filter((size, index, all) => index === 0 || all[index - 1] !== size);
			expect([...sizesInTurn].sort((a, b) => a - b)).toEqual(SMALL_SIZES);
			for (const size of SMALL_SIZES) {
				const rounds = ofSize(branches, size).map((branch) => branch.round);
				expect(rounds).toEqual([...rounds].sort((a, b) => a - b));
				for (let round = 0; round < samplesPerRepetition(size); round++)
					expect(
						ofSize(branches, size)
							.filter((branch) => branch.round === round)
							.map((branch) => branch.caseKey)
							.sort(),
					).toEqual([...CASES].sort());
			}
		},
	);

	it('keeps the order a size with one sample ran in: cases rotated by the repetition', () => {
		const order = (repetition: number, size: number) =>
			ofSize(smallBranches('fast', repetition, 'stamp'), size).map((branch) => branch.caseKey);
		expect(order(0, 1000)).toEqual(['fixed5', 'fixed10', 'fixed20', 'fixed50', FIRST, SECOND]);
		expect(order(1, 1000)).toEqual(['fixed10', 'fixed20', 'fixed50', FIRST, SECOND, 'fixed5']);
		expect(order(4, 1000)).toEqual([FIRST, SECOND, 'fixed5', 'fixed10', 'fixed20', 'fixed50']);
		expect(smallBranches('fast', 1, 'stamp').map((branch) => branch.size)[0]).toBe(500);
	});

	it('rotates the rounds of 100 messages one further each, so every case holds every place once', () => {
		const rounds = (repetition: number) => {
			const branches = ofSize(smallBranches('fast', repetition, 'stamp'), 100);
			return Array.from({ length: samplesPerRepetition(100) }, (_, round) =>
				branches.filter((branch) => branch.round === round).map((branch) => branch.caseKey),
			);
		};
		expect(rounds(0)).toEqual([
			['fixed5', 'fixed10', 'fixed20', 'fixed50', FIRST, SECOND],
			['fixed10', 'fixed20', 'fixed50', FIRST, SECOND, 'fixed5'],
			['fixed20', 'fixed50', FIRST, SECOND, 'fixed5', 'fixed10'],
			['fixed50', FIRST, SECOND, 'fixed5', 'fixed10', 'fixed20'],
			[FIRST, SECOND, 'fixed5', 'fixed10', 'fixed20', 'fixed50'],
		]);
		expect(rounds(2)[0]).toEqual(rounds(0)[2]);
	});

	it.each(REPETITIONS)(
		'gives every first execution a credential no automatic run used before, and its second the same one (repetition %i)',
		(repetition) => {
			const branches = smallBranches('fast', repetition, 'stamp');
			branches.forEach((branch, index) => {
				if (branch.caseKey !== FIRST) return;
				const credential = branch.sender.kind === 'messaging' && branch.sender.credential?.id;
				expect(credential).toBeTruthy();
				const learntBefore = branches
					.slice(0, index)
					.filter(isAutomatic)
					.map((earlier) => earlier.sender.kind === 'messaging' && earlier.sender.credential?.id);
				expect(learntBefore).not.toContain(credential);
				const second = branches[index + 1];
				expect(second.caseKey).toBe(SECOND);
				expect(second.round).toBe(branch.round);
				expect(second.subWorkflowId).toBe(subWorkflowId(branch.size, branch.round));
				const subWorkflow = secondExecutionWorkflow(branch, API);
				expect(subWorkflow.id).toBe(second.subWorkflowId);
				expect(subWorkflow.nodes).toContainEqual(
					expect.objectContaining({
						credentials: { messagingApi: expect.objectContaining({ id: credential }) },
					}),
				);
			});
		},
	);

	it('prepares a credential and a second-execution sub-workflow for every round any repetition runs', () => {
		const prepared = new Set(smallRounds().map(({ size, round }) => subWorkflowId(size, round)));
		expect(prepared.size).toBe(smallRounds().length);
		for (const repetition of REPETITIONS)
			for (const branch of smallBranches('fast', repetition, 'stamp'))
				if (branch.subWorkflowId) expect(prepared).toContain(branch.subWorkflowId);
	});
});
