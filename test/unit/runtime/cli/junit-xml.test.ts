import assert from 'node:assert/strict';
import { test } from 'node:test';
import { XMLParser } from 'fast-xml-parser';
import { junitXml } from '../../../../runtime/cli/reports/junit-xml.js';

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' });

test('junit report counts cases, failures and skips per suite and in all', () => {
  const xml = junitXml('syncline test', [
    {
      name: 'mapping.test.yaml',
      file: 'definitions/mapping.test.yaml',
      cases: [
        { name: 'maps a contact', classname: 'mapping.test.yaml', time: 0.0125 },
        { name: 'refuses a bad date', classname: 'mapping.test.yaml', failure: { message: 'expected an error', detail: '- a\n+ b' } },
      ],
    },
    { name: 'webhook.test.yaml', cases: [{ name: 'signed call', classname: 'webhook.test.yaml', skipped: 'no system' }] },
  ]);
  const parsed = parser.parse(xml);
  assert.equal(parsed.testsuites.tests, '3');
  assert.equal(parsed.testsuites.failures, '1');
  assert.equal(parsed.testsuites.skipped, '1');
  const [first, second] = parsed.testsuites.testsuite;
  assert.equal(first.file, 'definitions/mapping.test.yaml');
  assert.equal(first.time, '0.013');
  assert.equal(first.testcase[1].failure['#text'], '- a\n+ b');
  assert.equal(second.testcase.skipped.message, 'no system');
});

test('junit report escapes markup and control characters so the XML stays well-formed', () => {
  const xml = junitXml('a & b', [
    {
      name: '<suite "x">',
      cases: [{ name: 'quote " and \u0001 bell', classname: 'c', failure: { message: 'x < y\nnext', detail: ']]> & \u0000 <tag>' } }],
    },
  ]);
  const parsed = parser.parse(xml);
  assert.equal(parsed.testsuites.name, 'a & b');
  assert.equal(parsed.testsuites.testsuite.name, '<suite "x">');
  assert.equal(parsed.testsuites.testsuite.testcase.name, 'quote " and \uFFFD bell');
  assert.equal(parsed.testsuites.testsuite.testcase.failure['#text'], ']]> & \uFFFD <tag>');
  assert.ok(!xml.includes('\u0000') && !xml.includes('\u0001'));
});

test('junit report shows a passing case with output as <system-out>', () => {
  const xml = junitXml('syncline validate', [
    { name: 'a.yaml', cases: [{ name: 'Webhook/wh_1', classname: 'a.yaml', output: 'a.yaml:7:12: warning: <no order>' }] },
  ]);
  const parsed = parser.parse(xml);
  assert.equal(parsed.testsuites.failures, '0');
  assert.equal(parsed.testsuites.testsuite.testcase['system-out'], 'a.yaml:7:12: warning: <no order>');
});
