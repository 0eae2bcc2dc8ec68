// A loopback stand-in for the package registries dependency fixes read: PyPI's JSON API and npm
// packuments, built from a small catalog, with every request path recorded.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Per project, per release: its Requires-Dist lines. */
export type PypiCatalog = Record<string, Record<string, string[]>>;
/** Per package, per version: its dependencies. */
export type NpmCatalog = Record<string, Record<string, Record<string, string>>>;

export interface RegistryStandIn {
  url: string;
  requests: string[];
  close(): Promise<void>;
}

const normalize = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/** `tarballsAt`: the address packuments give tarballs under (default: the stand-in's own), as a registry answering for another host would. */
export async function startRegistryStandIn(catalog: { pypi?: PypiCatalog; npm?: NpmCatalog }, options: { tarballsAt?: string } = {}): Promise<RegistryStandIn> {
  const pypi = new Map(Object.entries(catalog.pypi ?? {}).map(([name, releases]) => [normalize(name), { name, releases }]));
  const requests: string[] = [];
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://registry');
    requests.push(url.pathname);
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    const python = /^\/pypi\/([^/]+)(?:\/([^/]+))?\/json$/.exec(url.pathname);
    if (python) {
      const project = pypi.get(normalize(decodeURIComponent(python[1])));
      if (!project) return send(404, { message: 'Not Found' });
      const version = python[2] && decodeURIComponent(python[2]);
      if (version) {
        if (!(version in project.releases)) return send(404, { message: 'Not Found' });
        return send(200, { info: { name: project.name, version, requires_dist: project.releases[version].length ? project.releases[version] : null } });
      }
      const releases = Object.fromEntries(Object.keys(project.releases).map((v) => [v, [{ filename: `${project.name}-${v}.tar.gz`, yanked: false }]]));
      return send(200, { info: { name: project.name }, releases });
    }
    const name = decodeURIComponent(url.pathname.slice(1));
    const versions = catalog.npm?.[name];
    if (!versions) return send(404, { error: 'Not found' });
    const base = options.tarballsAt ?? `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const manifests = Object.entries(versions).map(([version, dependencies]) => [
      version,
      {
        name,
        version,
        dependencies,
        dist: { tarball: `${base}/${name}/-/${name.replace(/^@[^/]+\//, '')}-${version}.tgz`, integrity: `sha512-${Buffer.from(`${name}@${version}`).toString('base64')}` },
      },
    ]);
    send(200, { name, 'dist-tags': { latest: Object.keys(versions).at(-1) }, versions: Object.fromEntries(manifests) });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
