/** Definitions the queue route tests add to the quickstart. */

/** Extra definitions: a record-store sync, a flow over it, a second system sync, a sync over a query, and a client allowed the flow's syncs. */
export const queueFiles = {
  'queue-extra.yaml': `kind: Sync
id: erp-inbox
name: Stored records to ERP accounts
source: { recordStore: true }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": id, "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
---
kind: Sync
id: crm-copy
name: A sync no allow-list names
source: { system: crm, object: Customer, where: "active = 1" }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "X-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
---
kind: Sync
id: city-query-copy
name: A sync reading a query, whose source id is its first column (an Integer)
source: { system: crm, query: activeCustomersByCity }
target: { system: erp, object: Account }
mapping: '{ "AccountNumber": "Q-" & $string(id), "AccountName": name }'
match: { where: "AccountNumber = #AccountNumber#", onNoMatch: create, onMatch: update }
---
kind: Flow
id: inbox-then-customers
steps: [{ sync: erp-inbox }, { sync: crm-customers-to-erp }]
---
kind: ApiClient
id: test-flow-client
token: \${env:FLOW_CLIENT_TOKEN}
scopes: [queue:read, queue:write]
syncs: [erp-inbox, crm-customers-to-erp]
`,
};
export const flowClientToken = 'flow-client-token-0123456789-abcdefghij-never-logged';
