/**
 * Where a request goes: below baseUrl with its path kept, never to another origin, with the query
 * escaped only where it must be, and messages that show the path without the query.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectorError } from '../../../../connectors/connector-error.js';
import { displayPath, redirectUrl, requestUrl } from '../../../../connectors/web/request-url.js';

const base = new URL('http://h:8080/odata/v4/crm/');

test('paths resolve below baseUrl, keeping its path', () => {
  assert.equal(requestUrl('crm', base, 'Customers').href, 'http://h:8080/odata/v4/crm/Customers');
  assert.equal(requestUrl('crm', base, '/Customers').href, 'http://h:8080/odata/v4/crm/Customers');
  assert.equal(requestUrl('crm', base, "Customers('A1')/orders").href, "http://h:8080/odata/v4/crm/Customers('A1')/orders");
  assert.equal(requestUrl('crm', base, '').href, 'http://h:8080/odata/v4/crm/');
  assert.equal(requestUrl('crm', base, '//evil.example/x').host, 'h:8080', 'a protocol-relative path stays below baseUrl');
});

test('an absolute URL of the same origin is followed, another origin is refused', () => {
  assert.equal(requestUrl('crm', base, 'http://h:8080/other/path?$skiptoken=5').href, 'http://h:8080/other/path?$skiptoken=5');
  for (const other of ['http://h:8081/odata/v4/crm/x', 'https://h:8080/odata/v4/crm/x', 'http://evil.example/odata/v4/crm/x?token=1']) {
    assert.throws(
      () => requestUrl('crm', base, other),
      (error: unknown) => {
        assert.ok(error instanceof ConnectorError);
        assert.equal(error.code, 'unavailable');
        assert.match(error.message, /^system 'crm' pointed to a URL on another host, scheme or port than connection\.baseUrl/);
        assert.doesNotMatch(error.message, /evil|token=|8081/);
        return true;
      },
    );
  }
});

test('query parameters are appended, escaped only where they would change the meaning', () => {
  const url = requestUrl('crm', base, 'Customers?$format=json', {
    $filter: "Name eq 'Ada & Bob' and Total gt 5",
    $select: 'id,name',
    $top: 10,
    $count: true,
    skip: undefined,
    tag: ['a=b', 'c+d'],
    city: 'Zürich #1',
  });
  assert.equal(
    url.search,
    '?$format=json&$filter=Name%20eq%20%27Ada%20%26%20Bob%27%20and%20Total%20gt%205&$select=id,name&$top=10&$count=true&tag=a%3Db&tag=c%2Bd&city=Z%C3%BCrich%20%231',
  );
  assert.equal(new URL(url).searchParams.get('$filter'), "Name eq 'Ada & Bob' and Total gt 5");
  assert.equal(requestUrl('crm', base, 'Customers#frag').href, 'http://h:8080/odata/v4/crm/Customers');
});

test('messages show the path, never the query', () => {
  assert.equal(displayPath(new URL('http://h/odata/Customers?$filter=secret%20eq%201&key=abc')), '/odata/Customers');
});

test('a redirect is followed within the origin only', () => {
  const from = new URL('http://h:8080/odata/v4/crm/Customers');
  assert.equal(redirectUrl('crm', from, '/odata/v5/crm/Customers').href, 'http://h:8080/odata/v5/crm/Customers');
  assert.throws(
    () => redirectUrl('crm', from, 'https://login.example.com/?next=x'),
    /^ConnectorError: system 'crm' redirected \/odata\/v4\/crm\/Customers to another host/,
  );
});
