/** The lexing free queries get: first keyword and single statement, outside literals and comments. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { leadingKeyword, singleStatement } from '../../connectors/sql/statement-text.js';

test('the first keyword skips whitespace, comments and parentheses', () => {
  assert.equal(leadingKeyword('  select 1', 'sqlite'), 'SELECT');
  assert.equal(leadingKeyword('/* x */ -- y\n ((WITH a AS (SELECT 1) SELECT * FROM a))', 'postgres'), 'WITH');
  assert.equal(leadingKeyword('# comment\nDELETE FROM t', 'mysql'), 'DELETE');
  assert.equal(leadingKeyword('# not a comment here', 'postgres'), '#');
  assert.equal(leadingKeyword('', 'sqlite'), '');
});

test('a statement is one statement when nothing but comments follows its semicolon', () => {
  assert.equal(singleStatement('SELECT 1;  -- done\n', 'sqlite'), 'SELECT 1');
  assert.equal(singleStatement("SELECT ';' AS a, \"x;y\", `z;` FROM t", 'mysql'), "SELECT ';' AS a, \"x;y\", `z;` FROM t");
  assert.equal(singleStatement('SELECT 1; DELETE FROM t', 'sqlite'), null);
  assert.equal(singleStatement('SELECT 1;;', 'postgres'), 'SELECT 1');
  assert.equal(singleStatement("SELECT 'it''s; fine'", 'sqlite'), "SELECT 'it''s; fine'");
  assert.equal(singleStatement("SELECT 'a\\'; DELETE FROM t; --'", 'mysql'), "SELECT 'a\\'; DELETE FROM t; --'");
  assert.equal(singleStatement("SELECT 'a\\'; DELETE FROM t", 'postgres'), null, "PostgreSQL strings take no backslash escapes");
  assert.equal(singleStatement("SELECT E'a\\'; b'", 'postgres'), "SELECT E'a\\'; b'");
  assert.equal(singleStatement('SELECT $tag$ ; $tag$, $$;$$', 'postgres'), 'SELECT $tag$ ; $tag$, $$;$$');
  assert.equal(singleStatement('SELECT [a;b] FROM t', 'sqlite'), 'SELECT [a;b] FROM t');
  assert.equal(singleStatement('SELECT 1 /* ; */', 'sqlite'), 'SELECT 1 /* ; */');
});
