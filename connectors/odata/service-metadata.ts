/**
 * The service's `$metadata`, fetched once per connection when an operation first needs it and
 * kept for the connection's life (a changed definition gets a new connection, and a changed
 * service is a deployment the operator restarts for). A failed fetch is not kept: the next
 * operation tries again. Each object is joined to the model once (`bound`), so a definition that
 * does not match the service is reported on every use of that object, and objects that match work
 * on.
 */
import { ConnectorError } from '../connector-error.js';
import type { WebClient } from '../web/index.js';
import { bindObject, type BoundObject, type ODataObject } from './object-model.js';
import { MetadataFormatError, MetadataLimitError, parseMetadata, type ServiceModel } from './parse-metadata.js';

export class ServiceMetadata {
  private model: Promise<ServiceModel> | undefined;
  private readonly bound = new Map<string, BoundObject | ConnectorError>();

  constructor(
    private readonly web: WebClient,
    private readonly systemId: string,
  ) {}

  /**
   * The service's model, fetched on first use. The fetch is shared by whoever waits for it, so no
   * caller's signal stops it (limits.statementTimeout does).
   */
  get(): Promise<ServiceModel> {
    if (this.model === undefined) {
      const loading = this.fetch();
      this.model = loading;
      loading.catch(() => {
        if (this.model === loading) this.model = undefined;
      });
    }
    return this.model;
  }

  /** `object` joined to the service's model; rejects with 'definition-mismatch' when the service lacks what it declares. */
  async object(object: ODataObject): Promise<BoundObject> {
    const known = this.bound.get(object.name);
    if (known instanceof ConnectorError) throw known;
    if (known !== undefined) return known;
    const model = await this.get();
    try {
      const joined = bindObject(object, model);
      this.bound.set(object.name, joined);
      return joined;
    } catch (error) {
      if (error instanceof ConnectorError) this.bound.set(object.name, error);
      throw error;
    }
  }

  private async fetch(): Promise<ServiceModel> {
    const response = await this.web.request({ path: '$metadata', accept: 'application/xml' });
    if (!response.ok) throw response.failure();
    try {
      return parseMetadata(response.text());
    } catch (error) {
      if (!(error instanceof MetadataFormatError)) throw error;
      // A model past the parser's limits is no real service's either, so the fix is the same.
      const problem =
        error instanceof MetadataLimitError
          ? "is past the odata connector's limits on a service's model"
          : 'is not an OData v4 service description';
      throw new ConnectorError(
        'unavailable',
        `system '${this.systemId}': its $metadata ${problem} (${error.message}); check connection.baseUrl, which must be the service root`,
        { cause: error, details: { system: this.systemId } },
      );
    }
  }
}
