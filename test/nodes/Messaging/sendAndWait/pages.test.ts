import { buttonSuffix } from '../../../../nodes/Messaging/sendAndWait/links';
import { answerFormPage, type AnswerPage } from '../../../../nodes/Messaging/sendAndWait/pages';

const freeText: AnswerPage = { responseType: 'freeText', title: '', question: '', submitLabel: '' };
const approval: AnswerPage = {
	responseType: 'approval',
	title: 'Order ORD-1',
	question: 'Approve ₹82000?',
	submitLabel: '✓ Approve',
	declineLabel: '✗ Decline',
};

describe('the answer page', () => {
	test('writes the texts as text: markup in a title, question or label cannot run', () => {
		const page = answerFormPage({
			...freeText,
			title: '<script>alert(1)</script>',
			question: 'Line 1\n"quoted" & <b>bold</b>',
			submitLabel: '<img src=x onerror=alert(1)>',
		});
		expect(page).not.toContain('<script>alert');
		expect(page).not.toContain('<img');
		expect(page).toContain('<h1>&#60;script&#62;alert(1)&#60;/script&#62;</h1>');
		expect(page).toContain('<p>Line 1<br>&#34;quoted&#34; &#38; &#60;b&#62;bold&#60;/b&#62;</p>');
		expect(page).toContain('<form method="post">');
		expect(page).toContain('<button type="submit">&#60;img src=x onerror=alert(1)&#62;</button>');
	});

	test('falls back to "Your answer" and "Submit", and shows a problem above the form', () => {
		const page = answerFormPage(freeText, 'Write an answer before sending it.');
		expect(page).toContain(
			'<h1>Your answer</h1><p class="error">Write an answer before sending it.</p>',
		);
		expect(page).toContain('>Submit</button>');
	});

	test('an approval shows the question and one button per choice, each posting its answer; no script', () => {
		const page = answerFormPage(approval);
		expect(page).toContain('<h1>Order ORD-1</h1><p>Approve ₹82000?</p>');
		expect(page).toContain(
			'<form method="post"><button type="submit" name="approved" value="true">✓ Approve</button><button type="submit" name="approved" value="false" class="decline">✗ Decline</button></form>',
		);
		expect(page).not.toMatch(/<script|onclick|<a /i);
		expect(page).not.toContain('<textarea');
	});

	test('Approve Only has no decline button, and an approve label with markup stays text', () => {
		const page = answerFormPage({
			...approval,
			submitLabel: '"><b>Yes</b>',
			declineLabel: undefined,
		});
		expect(page).not.toContain('value="false"');
		expect(page).toContain(
			'<button type="submit" name="approved" value="true">&#34;&#62;&#60;b&#62;Yes&#60;/b&#62;</button></form>',
		);
	});
});

describe('button suffixes', () => {
	test('a suffix is what follows the prefix, or the expected prefix when the link does not start with it', () => {
		const link = 'https://n8n.example.com/sub/webhook-waiting/77/node-1?approved=true&signature=ab';
		expect(buttonSuffix(link, '')).toEqual({ suffix: '77/node-1?approved=true&signature=ab' });
		expect(buttonSuffix(link, 'https://n8n.example.com/sub/webhook-waiting/77/')).toEqual({
			suffix: 'node-1?approved=true&signature=ab',
		});
		expect(buttonSuffix(link, 'https://other.example.com/')).toEqual({
			expectedPrefix: 'https://n8n.example.com/sub/webhook-waiting/',
		});
	});
});
