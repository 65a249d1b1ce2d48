/**
 * The statement time limit of a MariaDB/MySQL session (statement-timeout.ts says how each engine
 * stops a statement): MariaDB's `max_statement_time` (seconds), or, on a server that does not know
 * it, MySQL's `max_execution_time` (milliseconds, SELECT only).
 */
interface MysqlConnection {
  query(sql: string, callback: (error: (Error & { errno?: number }) | null) => void): void;
}

/** Which variable each MariaDB/MySQL connection takes: found out once per connection. */
const mysqlVariables = new WeakMap<object, 'max_statement_time' | 'max_execution_time'>();
const UNKNOWN_SYSTEM_VARIABLE = 1193;

function mysqlSet(connection: MysqlConnection, sql: string): Promise<void> {
  return new Promise((resolve, reject) => connection.query(sql, (error) => (error ? reject(error) : resolve())));
}

/** Sets the statement time limit of a MariaDB/MySQL session to `ms` (at least 1 ms). */
export async function setMysqlStatementTime(connection: MysqlConnection, ms: number): Promise<void> {
  const millis = Math.max(1, Math.round(ms));
  const statement = (variable: string) =>
    variable === 'max_statement_time' ? `SET SESSION max_statement_time = ${millis / 1000}` : `SET SESSION max_execution_time = ${millis}`;
  const known = mysqlVariables.get(connection);
  if (known !== undefined) return mysqlSet(connection, statement(known));
  try {
    await mysqlSet(connection, statement('max_statement_time'));
    mysqlVariables.set(connection, 'max_statement_time');
  } catch (error) {
    if ((error as { errno?: number }).errno !== UNKNOWN_SYSTEM_VARIABLE) throw error;
    await mysqlSet(connection, statement('max_execution_time'));
    mysqlVariables.set(connection, 'max_execution_time');
  }
}
