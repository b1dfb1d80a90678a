import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  defaultEngineSocket,
  describeEngine,
  engineHealth,
  engineProduct,
  engineWhere,
  isRemoteEngine,
  loadDocker,
} from "../../../../src/backends/container/engine.js";
import { refuseRemoteBind } from "../../../../src/backends/container/container-workspace.js";

// Which engine answers and where it is. Podman's Docker-compatible service answers the same API
// (GET /_ping, /version, /info) but names its component "Podman Engine"; its containers cannot run on
// these machines (its runtime cannot set rlimits), so its answers are replayed here from a unix socket
// the real client (dockerode) talks to, in the shapes `podman system service` 4.3 sends.

const PODMAN_VERSION = {
  Platform: { Name: "linux/amd64/debian-12" },
  Components: [
    { Name: "Podman Engine", Version: "4.3.1", Details: { APIVersion: "4.3.1", MinAPIVersion: "4.0.0" } },
    { Name: "Conmon", Version: "conmon version 2.1.6", Details: {} },
    { Name: "OCI Runtime (crun)", Version: "crun version 1.8.1", Details: {} },
  ],
  Version: "4.3.1",
  ApiVersion: "1.41",
  MinAPIVersion: "1.24",
  Os: "linux",
  Arch: "amd64",
};
const DOCKER_VERSION = {
  Components: [
    { Name: "Engine", Version: "20.10.24+dfsg1" },
    { Name: "containerd", Version: "1.6.20~ds1" },
    { Name: "runc", Version: "1.1.5+ds1" },
  ],
  Version: "20.10.24+dfsg1",
  ApiVersion: "1.41",
};

describe("engine detection", () => {
  it("names Docker, Podman, and an engine that says nothing of its components", () => {
    expect(engineProduct(DOCKER_VERSION)).toBe("Docker Engine");
    expect(engineProduct(PODMAN_VERSION)).toBe("Podman Engine");
    expect(engineProduct({})).toBe("Docker Engine");
  });

  it("tells local sockets from remote engines (bind mode needs this machine's paths)", () => {
    expect(isRemoteEngine("unix:///var/run/docker.sock")).toBe(false);
    expect(isRemoteEngine("tcp://127.0.0.1:2375")).toBe(false);
    expect(isRemoteEngine("tcp://build-box:2376")).toBe(true);
    expect(isRemoteEngine("ssh://root@127.0.0.1:2222")).toBe(true);
    expect(engineWhere("ssh://me@box")).toBe("remote, over SSH");
    expect(engineWhere("unix:///run/podman/podman.sock")).toBe("local socket");
    expect(() => refuseRemoteBind("bind", "ssh://me@box")).toThrow(/bind mode .* use copy mode/);
    expect(() => refuseRemoteBind("copy", "ssh://me@box")).not.toThrow();
    expect(() => refuseRemoteBind("bind", "unix:///var/run/docker.sock")).not.toThrow();
  });

  it("without DOCKER_HOST: Docker's socket, else Docker Desktop's, else Podman's rootless then rootful one", () => {
    const env = { HOME: "/home/u", XDG_RUNTIME_DIR: "/run/user/1000" };
    const only = (path: string) => (p: string) => p === path;
    expect(defaultEngineSocket(env, only("/var/run/docker.sock"))).toBe("/var/run/docker.sock");
    expect(defaultEngineSocket(env, only("/home/u/.docker/run/docker.sock"))).toBe("/home/u/.docker/run/docker.sock");
    expect(defaultEngineSocket(env, only("/run/user/1000/podman/podman.sock"))).toBe(
      "/run/user/1000/podman/podman.sock",
    );
    expect(defaultEngineSocket(env, only("/run/podman/podman.sock"))).toBe("/run/podman/podman.sock");
    expect(defaultEngineSocket(env, () => false)).toBe("/var/run/docker.sock");
  });
});

describe("a Podman-compatible service on a socket", () => {
  let dir: string;
  let server: Server;
  let socket: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "deep-acp-podman-api-"));
    socket = join(dir, "podman.sock");
    server = createServer((req, res) => {
      const path = (req.url ?? "").replace(/^\/v[\d.]+/, "").split("?")[0];
      const body =
        path === "/_ping"
          ? "OK"
          : path === "/version"
            ? JSON.stringify(PODMAN_VERSION)
            : path === "/info"
              ? JSON.stringify({ Driver: "overlay", CgroupVersion: "2" })
              : undefined;
      res.writeHead(body === undefined ? 404 : 200, {
        "Content-Type": "application/json",
        "Libpod-Api-Version": "4.3.1",
      });
      res.end(body ?? '{"message":"not found"}');
    });
    await new Promise<void>((resolve) => server.listen(socket, resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it("doctor's line names Podman Engine, its version and API, at a local socket", async () => {
    const address = `unix://${socket}`;
    const docker = await loadDocker({ env: { DOCKER_HOST: address } });
    const health = await engineHealth(docker, address);
    expect(health.ok).toBe(true);
    expect(describeEngine(health)).toMatch(
      new RegExp(
        `^Podman Engine 4\\.3\\.1 \\(API 1\\.41\\) at ${address.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")} \\(local socket\\) — answers in [\\d.]+ ms, storage overlay, cgroup v2$`,
      ),
    );
  });
});
