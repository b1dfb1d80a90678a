import { describe, expect, it } from "vitest";
import { createAddressPolicy } from "../../../src/web/address-policy.js";
import { proxyFor } from "../../../src/web/proxy.js";

describe("address policy", () => {
  const policy = createAddressPolicy();

  it.each([
    "127.0.0.1",
    "10.1.2.3",
    "172.20.0.1",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "::1",
    "fe80::1",
    "fd00::5",
    "::ffff:10.0.0.1",
    "::ffff:127.0.0.1",
    "224.0.0.1",
  ])("refuses %s by default", (address) => {
    expect(policy.check(address).allowed).toBe(false);
  });

  it.each(["93.184.216.34", "1.1.1.1", "2606:4700:4700::1111"])("allows the public address %s", (address) => {
    expect(policy.check(address)).toEqual({ allowed: true });
  });

  it("names the kind of address it refuses", () => {
    expect(policy.check("169.254.169.254")).toEqual({
      allowed: false,
      reason: "169.254.169.254 is a link-local address",
    });
    expect(policy.check("127.0.0.1")).toEqual({ allowed: false, reason: "127.0.0.1 is a loopback address" });
  });

  it("allows only the configured private networks", () => {
    const allowing = createAddressPolicy({ allowPrivate: ["127.0.0.1/32", "10.0.0.0/8"] });
    expect(allowing.check("127.0.0.1").allowed).toBe(true);
    expect(allowing.check("10.200.0.1").allowed).toBe(true);
    expect(allowing.check("127.0.0.2").allowed).toBe(false);
    expect(allowing.check("::1").allowed).toBe(false);
    expect(allowing.check("192.168.0.1").allowed).toBe(false);
  });

  it("rejects a malformed allowance with its text", () => {
    expect(() => createAddressPolicy({ allowPrivate: ["10.0.0.0/99"] })).toThrow(
      /"10.0.0.0\/99" is not an IP address or CIDR/,
    );
  });
});

describe("proxy selection", () => {
  const env = {
    HTTPS_PROXY: "http://proxy.corp:3128",
    http_proxy: "proxy.corp:8080",
    NO_PROXY: "internal.example, .corp.example:8443, ::1",
  };

  it("uses the scheme's proxy", () => {
    expect(proxyFor(new URL("https://example.com/"), env)?.href).toBe("http://proxy.corp:3128/");
    expect(proxyFor(new URL("http://example.com/"), env)?.href).toBe("http://proxy.corp:8080/");
  });

  it("skips hosts listed in NO_PROXY, by suffix and port", () => {
    expect(proxyFor(new URL("https://internal.example/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://a.internal.example/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://x.corp.example:8443/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://x.corp.example/"), env)).toBeDefined();
    expect(proxyFor(new URL("http://[::1]:9/"), env)).toBeUndefined();
    expect(proxyFor(new URL("https://notinternal.example/"), env)).toBeDefined();
  });

  it("connects directly without a proxy variable or with NO_PROXY=*", () => {
    expect(proxyFor(new URL("https://example.com/"), {})).toBeUndefined();
    expect(proxyFor(new URL("https://example.com/"), { HTTPS_PROXY: "http://p:1", no_proxy: "*" })).toBeUndefined();
  });
});
