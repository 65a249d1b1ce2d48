import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { escapeData, escapeProperty, githubAnnotations } from '../../../../runtime/cli/reports/github-annotations.js';
import { repositoryPath } from '../../../../runtime/cli/reports/repository-path.js';

test('workflow-command escaping: % and line breaks everywhere, : and , in properties too', () => {
  assert.equal(escapeData('100% done:\r\nnext, then'), '100%25 done:%0D%0Anext, then');
  assert.equal(escapeProperty('a:b,c%d\ne'), 'a%3Ab%2Cc%25d%0Ae');
  // Already escaped-looking text is escaped again, not taken for an escape.
  assert.equal(escapeData('%0A'), '%250A');
});

test('an annotation per problem; a problem without a definition is titled by its code', () => {
  const root = resolve('/repo');
  const text = githubAnnotations(
    {
      problems: [
        { file: join(root, 'defs', 'a.yaml'), line: 3, column: 7, code: 'yaml-syntax', message: 'bad: "x"' },
        {
          file: join(root, 'defs', 'b,c.yaml'),
          line: 1,
          column: 1,
          kind: 'Webhook',
          id: 'wh_1',
          code: 'first-without-order',
          message: 'm',
          severity: 'warning',
        },
      ],
      files: [],
      documents: [],
      strict: true,
    },
    root,
  );
  assert.equal(
    text,
    '::error file=defs/a.yaml,line=3,col=7,title=yaml-syntax::bad: "x"\n' +
      '::warning file=defs/b%2Cc.yaml,line=1,col=1,title=Webhook/wh_1 (first-without-order)::m\n',
  );
});

test('paths inside the root are relative with forward slashes; outside it they stay absolute', () => {
  const root = resolve('/repo/checkout');
  assert.equal(repositoryPath(join(root, 'definitions', 'syncs.yaml'), root), 'definitions/syncs.yaml');
  assert.equal(repositoryPath(root, root), '.');
  assert.equal(repositoryPath(resolve('/elsewhere/x.yaml'), root), resolve('/elsewhere/x.yaml').split('\\').join('/'));
});
