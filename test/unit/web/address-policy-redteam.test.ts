import { describe, expect, it } from "vitest";
import { createAddressPolicy } from "../../../src/web/address-policy.js";

// Red-team cases: IPv6 spellings of IPv4 addresses that are not the ::ffff: mapped form.
describe("address policy (red team)", () => {
  const policy = createAddressPolicy();
  it.each(["::7f00:1", "::127.0.0.1", "::a9fe:a9fe", "2002:7f00:1::1", "2002:a9fe:a9fe::1"])(
    "refuses %s",
    (address) => {
      expect(policy.check(address).allowed).toBe(false);
    },
  );
  it("still allows a public IPv6 address", () => {
    expect(policy.check("2606:4700:4700::1111").allowed).toBe(true);
  });
});
