-- Demo data of the quickstart ERP. Run once, when data/erp.sqlite does not exist yet.
CREATE TABLE accounts (
  AccountNumber TEXT PRIMARY KEY,
  AccountName TEXT NOT NULL,
  Email TEXT,
  City TEXT,
  Country TEXT,
  SyncedAt TEXT
);
-- One account exists already, so the first sync run both updates and creates.
INSERT INTO accounts (AccountNumber, AccountName, Email, City, Country, SyncedAt) VALUES
  ('C-2', 'Grace Hopper (old name)', 'grace@example.com', 'Arlington', 'US', NULL);
