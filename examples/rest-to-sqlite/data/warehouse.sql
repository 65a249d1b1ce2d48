-- The warehouse of the rest-to-sqlite example. Run once, when data/warehouse.sqlite does not exist yet.
CREATE TABLE customers (
  contact_id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT,
  city TEXT,
  country TEXT,
  synced_at TEXT
);
-- One customer is there already, under an old name, so the first run both updates and creates.
INSERT INTO customers (contact_id, name, email, city, country, synced_at) VALUES
  (2, 'Grace Hopper (old name)', 'grace@example.com', 'Arlington', 'US', NULL);
