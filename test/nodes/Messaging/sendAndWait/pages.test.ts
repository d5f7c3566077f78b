import { isLinkPreview } from '../../../../nodes/Messaging/sendAndWait/answerWebhook';
import { buttonSuffix } from '../../../../nodes/Messaging/sendAndWait/links';
import { answerFormPage } from '../../../../nodes/Messaging/sendAndWait/pages';

describe('the answer page', () => {
	test('writes the texts as text: markup in a title or description cannot run', () => {
		const page = answerFormPage({
			title: '<script>alert(1)</script>',
			description: 'Line 1\n"quoted" & <b>bold</b>',
			buttonLabel: 'Send',
		});
		expect(page).not.toContain('<script>alert');
		expect(page).toContain('<h1>&#60;script&#62;alert(1)&#60;/script&#62;</h1>');
		expect(page).toContain('<p>Line 1<br>&#34;quoted&#34; &#38; &#60;b&#62;bold&#60;/b&#62;</p>');
		expect(page).toContain('<form method="post">');
		expect(page).toContain('<button type="submit">Send</button>');
	});

	test('falls back to "Your answer" and "Submit", and shows a problem above the form', () => {
		const page = answerFormPage(
			{ title: '', description: '', buttonLabel: '' },
			'Write an answer before sending it.',
		);
		expect(page).toContain(
			'<h1>Your answer</h1><p class="error">Write an answer before sending it.</p>',
		);
		expect(page).toContain('>Submit</button>');
	});
});

describe('link previews and button suffixes', () => {
	test.each([
		['WhatsApp/2.24.6.77 A', true],
		['facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)', true],
		['Slackbot-LinkExpanding 1.0', true],
		['TelegramBot (like TwitterBot)', true],
		[undefined, true],
		[
			'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 Version/17.4 Mobile Safari/604.1',
			false,
		],
	])('%s is a preview: %s', (userAgent, preview) => {
		expect(isLinkPreview(userAgent)).toBe(preview);
	});

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
