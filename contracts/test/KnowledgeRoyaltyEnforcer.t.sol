// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { KnowledgeRoyaltyEnforcer } from "../src/enforcers/KnowledgeRoyaltyEnforcer.sol";

contract KnowledgeRoyaltyEnforcerTest is PricedAssetsTest {
    KnowledgeRoyaltyEnforcer enforcer;
    address constant AUTHOR = address(0xA07);
    address constant SELLER = address(0x5E11);
    uint16 constant BPS = 1000; // 10 %
    bytes terms;

    function setUp() public {
        setUpAssets();
        enforcer = new KnowledgeRoyaltyEnforcer();
        terms = abi.encode(address(usdc), AUTHOR, BPS);
    }

    function _pay(
        address to,
        uint256 amount
    ) internal view returns (Execution memory) {
        return Execution(address(usdc), 0, abi.encodeWithSelector(0xa9059cbb, to, amount));
    }

    function _payFrom(
        address to,
        uint256 amount
    ) internal view returns (Execution memory) {
        return Execution(address(usdc), 0, abi.encodeWithSelector(0x23b872dd, DELEGATOR, to, amount));
    }

    function _run(
        bytes32 mode,
        bytes memory execution
    ) internal view {
        enforcer.beforeHook(terms, "", mode, execution, HASH, DELEGATOR, REDEEMER);
    }

    function _unpaid(
        uint256 required,
        uint256 paid
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.RoyaltyUnpaid.selector, required, paid);
    }

    // ------------------------------------------------------------------ batches

    function test_batchWithRoyaltyPasses() public view {
        _run(BATCH, batch(execs(_pay(SELLER, 100e6), _pay(AUTHOR, 10e6))));
        _run(BATCH, batch(execs(_pay(AUTHOR, 10e6), _pay(SELLER, 100e6)))); // order does not matter
        _run(BATCH, batch(execs(_pay(SELLER, 60e6), _payFrom(SELLER, 40e6), _payFrom(AUTHOR, 10e6))));
        _run(BATCH, batch(execs(_pay(SELLER, 100e6), _pay(AUTHOR, 50e6)))); // more than required
    }

    function test_batchWithoutRoyaltyFails() public {
        vm.expectRevert(_unpaid(10e6, 0));
        _run(BATCH, batch(execs(_pay(SELLER, 100e6))));
        vm.expectRevert(_unpaid(10e6, 0));
        _run(SINGLE, single(address(usdc), 0, abi.encodeWithSelector(0xa9059cbb, SELLER, 100e6)));
    }

    function test_exactBoundaryRoundsUp() public {
        _run(BATCH, batch(execs(_pay(SELLER, 100e6), _pay(AUTHOR, 10e6))));
        vm.expectRevert(_unpaid(10e6, 10e6 - 1));
        _run(BATCH, batch(execs(_pay(SELLER, 100e6), _pay(AUTHOR, 10e6 - 1))));
        // 10 % of 11 units is 1.1: 2 units required, 1 is short
        vm.expectRevert(_unpaid(2, 1));
        _run(BATCH, batch(execs(_pay(SELLER, 11), _pay(AUTHOR, 1))));
        _run(BATCH, batch(execs(_pay(SELLER, 11), _pay(AUTHOR, 2))));
    }

    function test_paymentsInOtherTokensAndOtherMethodsIgnored() public view {
        Execution[] memory e = execs(
            Execution(address(dai), 0, abi.encodeWithSelector(0xa9059cbb, SELLER, 100e18)),
            Execution(address(usdc), 0, abi.encodeWithSelector(0x095ea7b3, SELLER, 100e6)), // approve: not a payment
            Execution(SELLER, 1 ether, "")
        );
        _run(BATCH, batch(e));
    }

    function test_noPaymentPasses() public view {
        _run(BATCH, batch(new Execution[](0)));
        _run(SINGLE, single(PAYEE, 0, ""));
        _run(BATCH, batch(execs(_pay(AUTHOR, 5e6)))); // only the author is paid
        _run(BATCH, batch(execs(_pay(SELLER, 0))));
    }

    function test_zeroBpsNeverRequiresRoyalty() public view {
        bytes memory t = abi.encode(address(usdc), AUTHOR, uint16(0));
        enforcer.beforeHook(t, "", BATCH, batch(execs(_pay(SELLER, 100e6))), HASH, DELEGATOR, REDEEMER);
    }

    function test_fullBpsRequiresEqualRoyalty() public {
        bytes memory t = abi.encode(address(usdc), AUTHOR, uint16(10_000));
        enforcer.beforeHook(t, "", BATCH, batch(execs(_pay(SELLER, 7), _pay(AUTHOR, 7))), HASH, DELEGATOR, REDEEMER);
        vm.expectRevert(_unpaid(7, 6));
        enforcer.beforeHook(t, "", BATCH, batch(execs(_pay(SELLER, 7), _pay(AUTHOR, 6))), HASH, DELEGATOR, REDEEMER);
    }

    function test_hugeAmountsDoNotOverflow() public {
        vm.expectRevert(_unpaid(type(uint256).max / 10 + 1, 0));
        _run(BATCH, batch(execs(_pay(SELLER, type(uint256).max))));
        _run(BATCH, batch(execs(_pay(SELLER, type(uint256).max), _pay(AUTHOR, type(uint256).max))));
    }

    // ------------------------------------------------------------------ modes

    function test_rejectsTryMode() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedExecType.selector, bytes1(0x01)));
        _run(BATCH_TRY, batch(execs(_pay(SELLER, 100e6), _pay(AUTHOR, 10e6))));
    }

    function test_rejectsDelegatecall() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _run(DELEGATECALL, single(address(usdc), 0, ""));
    }

    // ------------------------------------------------------------------ terms and views

    function test_getTermsInfoAndRequiredRoyalty() public view {
        (address token, address author, uint16 bps) = enforcer.getTermsInfo(terms);
        assertEq(token, address(usdc));
        assertEq(author, AUTHOR);
        assertEq(uint256(bps), BPS);
        assertEq(enforcer.requiredRoyalty(terms, 100e6), 10e6);
        assertEq(enforcer.requiredRoyalty(terms, 11), 2);
        assertEq(enforcer.requiredRoyalty(terms, 0), 0);
    }

    function test_invalidTerms() public {
        vm.expectRevert(abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.InvalidTermsLength.selector, uint256(64)));
        enforcer.getTermsInfo(abi.encode(address(usdc), AUTHOR));
        vm.expectRevert(abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.InvalidTermsLength.selector, uint256(42)));
        enforcer.beforeHook(
            abi.encodePacked(address(usdc), AUTHOR, BPS), "", BATCH, batch(new Execution[](0)), HASH, DELEGATOR, REDEEMER
        );
        vm.expectRevert(abi.encodeWithSelector(KnowledgeRoyaltyEnforcer.InvalidRoyaltyBps.selector, uint16(10_001)));
        enforcer.requiredRoyalty(abi.encode(address(usdc), AUTHOR, uint16(10_001)), 1);
    }

    // ------------------------------------------------------------------ fuzz

    function testFuzz_royaltyRule(
        uint256 sale1,
        uint256 sale2,
        uint256 royalty,
        uint16 bps
    ) public {
        sale1 = bound(sale1, 0, 1e30);
        sale2 = bound(sale2, 0, 1e30);
        royalty = bound(royalty, 0, 1e30);
        bps = uint16(bound(bps, 0, 10_000));
        bytes memory t = abi.encode(address(usdc), AUTHOR, bps);
        Execution[] memory e = execs(_pay(SELLER, sale1), _payFrom(PAYEE, sale2), _pay(AUTHOR, royalty));
        uint256 paid = sale1 + sale2;
        uint256 required = (paid * bps + 9999) / 10_000;
        assertEq(enforcer.requiredRoyalty(t, paid), required);
        if (paid != 0 && royalty * 10_000 < paid * bps) vm.expectRevert(_unpaid(required, royalty));
        enforcer.beforeHook(t, "", BATCH, batch(e), HASH, DELEGATOR, REDEEMER);
    }
}
