/** The lexing free queries get: first keyword and single statement, outside literals and comments. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { codeOnly, keywordPosition, leadingKeyword, mainKeyword, singleStatement } from '../../../../connectors/sql/statement-text.js';

test('the first keyword skips whitespace, comments and parentheses', () => {
  assert.equal(leadingKeyword('  select 1', 'sqlite'), 'SELECT');
  assert.equal(leadingKeyword('/* x */ -- y\n ((WITH a AS (SELECT 1) SELECT * FROM a))', 'postgres'), 'WITH');
  assert.equal(leadingKeyword('# comment\nDELETE FROM t', 'mysql'), 'DELETE');
  assert.equal(leadingKeyword('# not a comment here', 'postgres'), '#');
  assert.equal(leadingKeyword('', 'sqlite'), '');
});

test('a statement is one statement when nothing but comments follows its semicolon', () => {
  assert.equal(singleStatement('SELECT 1;  -- done\n', 'sqlite'), 'SELECT 1');
  assert.equal(singleStatement('SELECT \';\' AS a, "x;y", `z;` FROM t', 'mysql'), 'SELECT \';\' AS a, "x;y", `z;` FROM t');
  assert.equal(singleStatement('SELECT 1; DELETE FROM t', 'sqlite'), null);
  assert.equal(singleStatement('SELECT 1;;', 'postgres'), 'SELECT 1');
  assert.equal(singleStatement("SELECT 'it''s; fine'", 'sqlite'), "SELECT 'it''s; fine'");
  assert.equal(singleStatement("SELECT 'a\\'; DELETE FROM t; --'", 'mysql'), "SELECT 'a\\'; DELETE FROM t; --'");
  assert.equal(singleStatement("SELECT 'a\\'; DELETE FROM t", 'postgres'), null, 'PostgreSQL strings take no backslash escapes');
  assert.equal(singleStatement("SELECT E'a\\'; b'", 'postgres'), "SELECT E'a\\'; b'");
  assert.equal(singleStatement('SELECT $tag$ ; $tag$, $$;$$', 'postgres'), 'SELECT $tag$ ; $tag$, $$;$$');
  assert.equal(singleStatement('SELECT [a;b] FROM t', 'sqlite'), 'SELECT [a;b] FROM t');
  assert.equal(singleStatement('SELECT 1 /* ; */', 'sqlite'), 'SELECT 1 /* ; */');
});

test('INTO is found as a word of the code in every form the databases read it', () => {
  const into = (source: string, dialect: 'sqlite' | 'postgres' | 'mysql') => keywordPosition(source, dialect, 'INTO');
  assert.equal(into("SELECT 1 INTO OUTFILE '/tmp/x'", 'mysql'), 9);
  assert.equal(into("select * into dumpfile '/tmp/x' from t", 'mysql'), 9);
  assert.equal(into('SELECT 1 INTO @x', 'mysql'), 9);
  assert.equal(into('SELECT id, name\n  INTO newtable FROM customers', 'postgres'), 18);
  assert.equal(into("SELECT 'a'INTO @x", 'mysql'), 10, 'right after a literal');
  assert.equal(into('SELECT 1 AS "a"INTO t', 'postgres'), 15, 'right after a quoted name');
  // MariaDB reads a number and a keyword run together as two tokens.
  assert.equal(into('SELECT 1.INTO @x', 'mysql'), 9);
  assert.equal(into('SELECT 1e1INTO @x', 'mysql'), 10);
  assert.equal(into('SELECT 1 /*!INTO @x*/', 'mysql'), 12, 'MariaDB runs the text of /*! … */');
  assert.equal(into("SELECT 1 /*M!100000 INTO OUTFILE '/tmp/x' */", 'mysql'), 20, 'and of /*M! … */');
  assert.equal(into("SELECT 2--1 INTO OUTFILE '/tmp/x'", 'mysql'), 12, 'in MariaDB -- is a comment only before a space');
  assert.equal(into("SELECT 1 AS a /* /* */ ' */ INTO t --'", 'postgres'), 28, 'PostgreSQL comments nest');
  assert.equal(into("SELECT 1 AS a$b$ INTO t FROM x WHERE 'a$b$' = ''", 'postgres'), 17, 'a$b$ is a name, not a dollar quote');
});

test('INTO in a literal, a quoted name, a comment or a longer name is no INTO', () => {
  const into = (source: string, dialect: 'sqlite' | 'postgres' | 'mysql') => keywordPosition(source, dialect, 'INTO');
  assert.equal(into('SELECT \'into\' AS "into", `into` FROM t -- into\n/* into */', 'mysql'), -1);
  assert.equal(into('SELECT "into", [into] FROM t', 'sqlite'), -1);
  assert.equal(into("SELECT $$ into $$, $q$ INTO $q$, E'\\' into'", 'postgres'), -1);
  assert.equal(into('SELECT into_date, intox, x_into, $into FROM t', 'postgres'), -1);
  assert.equal(into('SELECT 1 # into\nFROM t', 'mysql'), -1);
  assert.equal(into('SELECT 1 -- into', 'mysql'), -1, 'a MariaDB comment with its space');
  assert.equal(into("SELECT 'a\\' INTO b'", 'mysql'), -1, 'MariaDB strings take backslash escapes');
});

test('MariaDB executable comments and PostgreSQL nested comments are read as the database reads them', () => {
  assert.equal(singleStatement('SELECT 1 /*!; DELETE FROM t */', 'mysql'), null, 'a statement hidden in /*! … */ is a second statement');
  assert.equal(singleStatement('SELECT 1 /* /* ; */ ; */', 'postgres'), 'SELECT 1 /* /* ; */ ; */');
  assert.equal(singleStatement('SELECT 2--1\n; DELETE FROM t', 'mysql'), null);
  assert.equal(codeOnly("SELECT 'x' -- c", 'sqlite'), `SELECT${' '.repeat(9)}`, 'same length, literal and comment blanked');
});

test('the main keyword of a WITH statement is the one after its common table expressions', () => {
  assert.equal(mainKeyword('WITH a AS (SELECT 1), b(x) AS MATERIALIZED (VALUES (2)) SELECT * FROM a, b', 'postgres'), 'SELECT');
  assert.equal(mainKeyword("with x as (select 1) delete from t where 'select' = ''", 'sqlite'), 'DELETE');
  assert.equal(mainKeyword('((WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r))', 'sqlite'), 'SELECT');
  assert.equal(mainKeyword('VALUES (1)', 'sqlite'), 'VALUES');
});
