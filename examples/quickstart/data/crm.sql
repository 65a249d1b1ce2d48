-- Demo data of the quickstart CRM. Run once, when data/crm.sqlite does not exist yet.
CREATE TABLE customers (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  email TEXT,
  active INTEGER NOT NULL DEFAULT 1,
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE TABLE customer_addresses (
  customer_id INTEGER NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('main', 'invoice')),
  street TEXT,
  city TEXT,
  zip TEXT,
  country TEXT,
  PRIMARY KEY (customer_id, type)
);
INSERT INTO customers (id, name, email, active) VALUES
  (1, 'Ada Lovelace', 'Ada@Example.com', 1),
  (2, 'Grace Hopper', 'grace@example.com', 1),
  (3, 'Alan Turing', 'alan@example.com', 0),
  (4, 'Katherine Johnson', 'katherine@example.com', 1),
  (5, 'Edsger Dijkstra', '', 1),
  (6, 'Barbara Liskov', 'barbara@example.com', 1);
INSERT INTO customer_addresses (customer_id, type, street, city, zip, country) VALUES
  (1, 'main', '12 St James''s Square', 'London', 'SW1Y 4JH', 'GB'),
  (1, 'invoice', '1 Analytical Row', 'London', 'EC1A 1BB', 'GB'),
  (2, 'main', '1 Navy Yard', 'Arlington', '22202', 'US'),
  (4, 'main', '1 NASA Way', 'Hampton', '23666', 'US'),
  (6, 'main', '77 Massachusetts Ave', 'Cambridge', '02139', 'US'),
  (6, 'invoice', 'PO Box 1', 'Cambridge', '02139', 'US');
