// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution, ExecutionLib } from "../src/libraries/ExecutionLib.sol";
import { VaultNAVEnforcer } from "../src/enforcers/VaultNAVEnforcer.sol";
import { TestVault } from "../src/test-assets/TestVault.sol";

/// Stands in for the DelegationManager's first loop over a redeemDelegations call: beforeAllHook for every
/// redemption, in order, before anything executes. Several `redeemAll` inside one top-level call are
/// several redeemDelegations calls in one transaction.
contract VaultNAVManager {
    function redeemAll(
        VaultNAVEnforcer enforcer,
        bytes memory terms,
        address delegator,
        bytes[] memory executions
    ) public {
        for (uint256 i; i < executions.length; ++i) {
            enforcer.beforeAllHook(terms, "", bytes32(0), executions[i], keccak256(abi.encode(i)), delegator, address(0xB0B));
        }
    }

    /// Two redeemDelegations calls in one transaction, with `between` run on `target` in between (an
    /// execution of the first that changes the vault).
    function redeemTwice(
        VaultNAVEnforcer enforcer,
        bytes memory terms,
        address delegator,
        bytes[] memory first,
        address target,
        bytes memory between,
        bytes[] memory second
    ) external {
        redeemAll(enforcer, terms, delegator, first);
        (bool ok,) = target.call(between);
        require(ok, "between");
        redeemAll(enforcer, terms, delegator, second);
    }
}

/// Every top-level call is its own transaction here (isolate), as each redemption in production is, so
/// the running total the enforcer keeps in transient storage starts at zero for every `_hook`; the
/// transaction-wide cap is tested through VaultNAVManager, which makes many redemptions in one call.
/// forge-config: default.isolate = true
contract VaultNAVEnforcerTest is PricedAssetsTest {
    VaultNAVEnforcer enforcer;
    TestVault vault;
    uint16 constant BPS = 1000; // 10 % of NAV per redemption
    bytes terms;

    function setUp() public {
        setUpAssets();
        enforcer = new VaultNAVEnforcer();
        vault = new TestVault(address(usdc));
        terms = abi.encode(address(vault), BPS);
        _seed(10_000e6); // 10,000 USDC in, 10,000 shares out
    }

    function _seed(
        uint256 assets
    ) internal {
        usdc.mint(address(this), assets);
        usdc.approve(address(vault), assets);
        vault.deposit(assets, address(this));
    }

    function _donate(
        uint256 assets
    ) internal {
        usdc.mint(address(vault), assets);
    }

    function _hook(
        bytes memory t,
        bytes32 mode,
        bytes memory execution
    ) internal {
        enforcer.beforeAllHook(t, "", mode, execution, HASH, DELEGATOR, REDEEMER);
    }

    function _call(
        address target,
        bytes memory callData
    ) internal {
        _hook(terms, SINGLE, single(target, 0, callData));
    }

    function _exceeds(
        uint256 amount,
        uint256 maxAmount,
        uint256 total
    ) internal view returns (bytes memory) {
        return abi.encodeWithSelector(VaultNAVEnforcer.ExceedsVaultNAV.selector, address(vault), amount, maxAmount, total);
    }

    function _deposit(
        uint256 a
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("deposit(uint256,address)", a, DELEGATOR);
    }

    function _mint(
        uint256 s
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("mint(uint256,address)", s, DELEGATOR);
    }

    function _withdraw(
        uint256 a
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("withdraw(uint256,address,address)", a, DELEGATOR, DELEGATOR);
    }

    function _redeem(
        uint256 s
    ) internal pure returns (bytes memory) {
        return abi.encodeWithSignature("redeem(uint256,address,address)", s, DELEGATOR, DELEGATOR);
    }

    // ------------------------------------------------------------------ asset-denominated vault calls

    function test_selectors() public pure {
        assertEq(bytes32(TestVault.deposit.selector), bytes32(bytes4(0x6e553f65)));
        assertEq(bytes32(TestVault.mint.selector), bytes32(bytes4(0x94bf804d)));
        assertEq(bytes32(TestVault.withdraw.selector), bytes32(bytes4(0xb460af94)));
        assertEq(bytes32(TestVault.redeem.selector), bytes32(bytes4(0xba087652)));
    }

    function test_depositBoundary() public {
        _call(address(vault), _deposit(1000e6));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _call(address(vault), _deposit(1000e6 + 1));
    }

    function test_withdrawBoundary() public {
        _call(address(vault), _withdraw(1000e6));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _call(address(vault), _withdraw(1000e6 + 1));
    }

    // ------------------------------------------------------------------ share-denominated calls convert

    function test_redeemConvertsSharesToAssets() public {
        _donate(10_000e6); // each share is now worth 2 assets; max = 2000e6
        assertEq(vault.convertToAssets(1000e6), 2000e6);
        _call(address(vault), _redeem(1000e6));
        vm.expectRevert(_exceeds(2000e6 + 2, 2000e6, 20_000e6));
        _call(address(vault), _redeem(1000e6 + 1));
    }

    function test_mintUsesPreviewMintRoundedUp() public {
        _donate(5000e6); // 15,000 assets / 10,000 shares: 1.5 per share; max = 1500e6
        _call(address(vault), _mint(1000e6)); // costs exactly 1500e6
        // 1 more share costs ceil(1.5) = 2 more assets: previewMint, not convertToAssets (which floors to 1)
        assertEq(vault.previewMint(1000e6 + 1), 1500e6 + 2);
        vm.expectRevert(_exceeds(1500e6 + 2, 1500e6, 15_000e6));
        _call(address(vault), _mint(1000e6 + 1));
    }

    function test_shareTransferApproveAndTransferFrom() public {
        _donate(10_000e6);
        _call(address(vault), transferCall(1000e6)); // 2000e6 assets: at the cap
        _call(address(vault), approveCall(1000e6));
        _call(address(vault), transferFromCall(1000e6));
        vm.expectRevert(_exceeds(2000e6 + 2, 2000e6, 20_000e6));
        _call(address(vault), transferCall(1000e6 + 1));
        vm.expectRevert(_exceeds(2000e6 + 2, 2000e6, 20_000e6));
        _call(address(vault), approveCall(1000e6 + 1));
        vm.expectRevert(_exceeds(2000e6 + 2, 2000e6, 20_000e6));
        _call(address(vault), transferFromCall(1000e6 + 1));
    }

    function test_unlimitedShareApprovalAndMint() public {
        vm.expectRevert(_exceeds(type(uint256).max, 1000e6, 10_000e6));
        _call(address(vault), approveCall(type(uint256).max));
        vm.expectRevert(_exceeds(type(uint256).max, 1000e6, 10_000e6));
        _call(address(vault), _mint(type(uint256).max));
    }

    // ------------------------------------------------------------------ calls to the asset

    function test_assetTransferAndApprove() public {
        _call(address(usdc), transferCall(1000e6));
        _call(address(usdc), approveCall(1000e6));
        _call(address(usdc), transferFromCall(1000e6));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _call(address(usdc), transferCall(1000e6 + 1));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _call(address(usdc), approveCall(1000e6 + 1));
    }

    function test_otherCallsCountZero() public {
        _call(address(dai), transferCall(1e30)); // another token
        _call(address(usdc), approveCall(0));
        _call(address(vault), abi.encodeWithSignature("balanceOf(address)", DELEGATOR));
        _call(address(vault), "");
        _call(address(vault), hex"6e553f"); // 3 bytes
        _call(PAYEE, _redeem(1e30)); // redeem on another contract
        _hook(terms, SINGLE, single(address(vault), 1 ether, ""));
    }

    // ------------------------------------------------------------------ batches

    function test_batchSumsEveryExecution() public {
        Execution[] memory e = execs(
            Execution(address(usdc), 0, approveCall(400e6)),
            Execution(address(vault), 0, _deposit(400e6)),
            Execution(address(vault), 0, _redeem(200e6))
        );
        _hook(terms, BATCH, batch(e)); // 1000e6: at the cap
        e[2] = Execution(address(vault), 0, _redeem(200e6 + 1));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _hook(terms, BATCH, batch(e));
    }

    function test_approveToTheVaultCountsOnlyThroughItsDeposit() public {
        bytes memory approveVault = abi.encodeWithSelector(0x095ea7b3, address(vault), 1000e6);
        _call(address(usdc), approveVault); // alone it moves nothing
        _call(address(usdc), abi.encodeWithSelector(0x095ea7b3, address(vault), type(uint256).max));
        Execution[] memory e = execs(Execution(address(usdc), 0, approveVault), Execution(address(vault), 0, _deposit(1000e6)));
        _hook(terms, BATCH, batch(e)); // 1000e6 once: at the cap, not 2000e6
        e[1] = Execution(address(vault), 0, _deposit(1000e6 + 1));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _hook(terms, BATCH, batch(e));
        // Any other spender still counts.
        e[0] = Execution(address(usdc), 0, approveCall(1));
        e[1] = Execution(address(vault), 0, _deposit(1000e6));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        _hook(terms, BATCH, batch(e));
    }

    function testFuzz_approveToTheVaultNeverCounts(
        uint256 amount,
        uint256 deposit
    ) public {
        deposit = bound(deposit, 0, 1000e6);
        Execution[] memory e = execs(
            Execution(address(usdc), 0, abi.encodeWithSelector(0x095ea7b3, address(vault), amount)),
            Execution(address(vault), 0, _deposit(deposit))
        );
        _hook(terms, BATCH, batch(e));
    }

    function test_tryModeAllowed() public {
        _hook(terms, SINGLE_TRY, single(address(vault), 0, _withdraw(1000e6)));
    }

    function test_rejectsDelegatecall() public {
        vm.expectRevert(abi.encodeWithSelector(ExecutionLib.UnsupportedCallType.selector, bytes1(0xff)));
        _hook(terms, DELEGATECALL, single(address(vault), 0, _withdraw(1)));
    }

    // ------------------------------------------------------------------ empty vault

    function test_emptyVaultRefusesAnyAmount() public {
        TestVault empty = new TestVault(address(usdc));
        bytes memory t = abi.encode(address(empty), uint16(10_000));
        assertEq(enforcer.maxActionAssets(t), 0);
        vm.expectRevert(abi.encodeWithSelector(VaultNAVEnforcer.ExceedsVaultNAV.selector, address(empty), 1, 0, 0));
        _hook(t, SINGLE, single(address(empty), 0, _deposit(1)));
        // a zero-amount call never needs totalAssets
        _hook(t, SINGLE, single(address(empty), 0, _deposit(0)));
    }

    function test_vaultViewRevertsBubbleUp() public {
        bytes memory t = abi.encode(PAYEE, BPS); // not a contract: totalAssets() cannot be read
        vm.expectRevert();
        _hook(t, SINGLE, single(PAYEE, 0, _withdraw(1)));
    }

    // ------------------------------------------------------------------ terms and views

    function test_getTermsInfoAndMaxActionAssets() public {
        (address v, uint16 bps) = enforcer.getTermsInfo(terms);
        assertEq(v, address(vault));
        assertEq(uint256(bps), BPS);
        assertEq(enforcer.maxActionAssets(terms), 1000e6);
        _donate(1);
        assertEq(enforcer.maxActionAssets(terms), 1000e6, "floored");
        assertEq(enforcer.maxActionAssets(abi.encode(address(vault), uint16(10_000))), 10_000e6 + 1);
        assertEq(enforcer.maxActionAssets(abi.encode(address(vault), uint16(1))), 1e6);
    }

    function test_invalidTerms() public {
        vm.expectRevert(abi.encodeWithSelector(VaultNAVEnforcer.InvalidTermsLength.selector, uint256(22)));
        enforcer.getTermsInfo(abi.encodePacked(address(vault), BPS));
        vm.expectRevert(abi.encodeWithSelector(VaultNAVEnforcer.InvalidTermsLength.selector, uint256(96)));
        _hook(abi.encode(address(vault), BPS, uint256(0)), SINGLE, single(address(vault), 0, _deposit(1)));
        vm.expectRevert(abi.encodeWithSelector(VaultNAVEnforcer.InvalidNavBps.selector, uint16(0)));
        enforcer.getTermsInfo(abi.encode(address(vault), uint16(0)));
        vm.expectRevert(abi.encodeWithSelector(VaultNAVEnforcer.InvalidNavBps.selector, uint16(10_001)));
        _hook(abi.encode(address(vault), uint16(10_001)), SINGLE, single(address(vault), 0, _deposit(1)));
    }

    // ------------------------------------------------------------------ fuzz

    function testFuzz_redeemAtAnySharePrice(
        uint256 donation,
        uint256 shares,
        uint16 bps
    ) public {
        donation = bound(donation, 0, 1e15);
        shares = bound(shares, 0, 10_000e6);
        bps = uint16(bound(bps, 1, 10_000));
        _donate(donation);
        uint256 total = 10_000e6 + donation;
        uint256 assets = shares * total / 10_000e6; // convertToAssets, floored
        uint256 maxAmount = total * bps / 10_000;
        bytes memory t = abi.encode(address(vault), bps);
        if (assets > maxAmount) {
            vm.expectRevert(
                abi.encodeWithSelector(VaultNAVEnforcer.ExceedsVaultNAV.selector, address(vault), assets, maxAmount, total)
            );
        }
        _hook(t, SINGLE, single(address(vault), 0, _redeem(shares)));
    }

    function testFuzz_mixedBatch(
        uint256 dep,
        uint256 mintShares,
        uint256 assetTransfer,
        uint256 donation
    ) public {
        dep = bound(dep, 0, 5000e6);
        mintShares = bound(mintShares, 0, 5000e6);
        assetTransfer = bound(assetTransfer, 0, 5000e6);
        donation = bound(donation, 0, 30_000e6);
        _donate(donation);
        uint256 total = 10_000e6 + donation;
        uint256 minted = (mintShares * total + 10_000e6 - 1) / 10_000e6; // previewMint rounds up
        uint256 amount = dep + minted + assetTransfer;
        Execution[] memory e = execs(
            Execution(address(vault), 0, _deposit(dep)),
            Execution(address(vault), 0, _mint(mintShares)),
            Execution(address(usdc), 0, transferCall(assetTransfer))
        );
        if (amount > total * BPS / 10_000) vm.expectRevert(_exceeds(amount, total * BPS / 10_000, total));
        _hook(terms, BATCH, batch(e));
    }

    // ------------------------------------------------------------------ one transaction, many redemptions

    function _withdrawals(
        uint256 n,
        uint256 each
    ) internal view returns (bytes[] memory ex) {
        ex = new bytes[](n);
        for (uint256 i; i < n; ++i) {
            ex[i] = single(address(vault), 0, _withdraw(each));
        }
    }

    /// The audit's case: forty withdrawals of 10% of what is left (each alone within the cap) would move
    /// 98.5% of the vault; the second already takes the transaction past 10% of the vault it found.
    function test_transaction_fortyTenPercentWithdrawalsAreRefused() public {
        VaultNAVManager manager = new VaultNAVManager();
        bytes[] memory ex = new bytes[](40);
        uint256 left = 10_000e6;
        for (uint256 i; i < 40; ++i) {
            ex[i] = single(address(vault), 0, _withdraw(left / 10));
            left -= left / 10;
        }
        vm.expectRevert(_exceeds(1000e6 + 900e6, 1000e6, 10_000e6));
        manager.redeemAll(enforcer, terms, DELEGATOR, ex);
    }

    /// Forty withdrawals of 0.25% sum to exactly the cap and pass; one more unit anywhere is refused.
    function test_transaction_manySmallRedemptionsUpToTheCap() public {
        VaultNAVManager manager = new VaultNAVManager();
        manager.redeemAll(enforcer, terms, DELEGATOR, _withdrawals(40, 25e6));
        bytes[] memory ex = _withdrawals(40, 25e6);
        ex[39] = single(address(vault), 0, _withdraw(25e6 + 1));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        manager.redeemAll(enforcer, terms, DELEGATOR, ex);
    }

    /// The next transaction starts again from zero (each top-level call here is one).
    function test_transaction_theNextTransactionStartsAfresh() public {
        VaultNAVManager manager = new VaultNAVManager();
        manager.redeemAll(enforcer, terms, DELEGATOR, _withdrawals(4, 250e6));
        manager.redeemAll(enforcer, terms, DELEGATOR, _withdrawals(4, 250e6));
    }

    /// Two redeemDelegations calls in one transaction share the total, and the cap stays the one the
    /// first found, even if the vault grew in between (a donation cannot raise it mid-transaction).
    function test_transaction_spansRedeemDelegationsCallsAndKeepsTheFirstTotal() public {
        VaultNAVManager manager = new VaultNAVManager();
        usdc.mint(address(manager), 90_000e6);
        bytes memory donate = abi.encodeWithSignature("transfer(address,uint256)", address(vault), 90_000e6);
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        manager.redeemTwice(enforcer, terms, DELEGATOR, _withdrawals(1, 600e6), address(usdc), donate, _withdrawals(1, 400e6 + 1));
        manager.redeemTwice(enforcer, terms, DELEGATOR, _withdrawals(1, 600e6), address(usdc), donate, _withdrawals(1, 400e6));
    }

    /// Another delegator's delegations, or another manager, keep their own totals.
    function test_transaction_totalsAreKeptPerManagerAndDelegator() public {
        VaultNAVManager manager = new VaultNAVManager();
        VaultNAVManager other = new VaultNAVManager();
        Batch b = new Batch();
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1000e6))));
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, PAYEE, _withdrawals(1, 1000e6))));
        b.add(address(other), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1000e6))));
        b.run(); // three full caps in one transaction, one per (manager, delegator)
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, PAYEE, _withdrawals(1, 1000e6))));
        b.add(address(other), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1000e6))));
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1000e6))));
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1))));
        vm.expectRevert(_exceeds(1000e6 + 1, 1000e6, 10_000e6));
        b.run();
    }

    /// Caveats naming the same vault share one total, each checking it against its own cap.
    function test_transaction_capsOfDifferentCaveatsShareTheTotal() public {
        VaultNAVManager manager = new VaultNAVManager();
        Batch b = new Batch();
        bytes memory wide = abi.encode(address(vault), uint16(5000));
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, wide, DELEGATOR, _withdrawals(1, 2000e6))));
        b.add(address(manager), abi.encodeCall(VaultNAVManager.redeemAll, (enforcer, terms, DELEGATOR, _withdrawals(1, 1))));
        vm.expectRevert(_exceeds(2000e6 + 1, 1000e6, 10_000e6));
        b.run();
    }

    /// Any split of a transaction into redemptions: accepted while the running sum is within the cap of
    /// the vault as first found; the redemption that passes it is refused with the running sum.
    function testFuzz_transaction_runningSumAgainstTheFirstTotal(
        uint256[8] memory amounts,
        uint256 donation
    ) public {
        donation = bound(donation, 0, 1e12);
        _donate(donation);
        uint256 total = 10_000e6 + donation;
        uint256 cap = total * BPS / 10_000;
        bytes[] memory ex = new bytes[](8);
        uint256 sum;
        uint256 refusedAt = type(uint256).max;
        uint256 refusedSum;
        for (uint256 i; i < 8; ++i) {
            amounts[i] = bound(amounts[i], 0, cap / 3);
            ex[i] = single(address(vault), 0, _withdraw(amounts[i]));
            sum += amounts[i];
            if (sum > cap && refusedAt == type(uint256).max) (refusedAt, refusedSum) = (i, sum);
        }
        VaultNAVManager manager = new VaultNAVManager();
        if (refusedAt != type(uint256).max) vm.expectRevert(_exceeds(refusedSum, cap, total));
        manager.redeemAll(enforcer, terms, DELEGATOR, ex);
    }
}

/// Several calls in one transaction (one top-level call of the test).
contract Batch {
    address[] internal targets;
    bytes[] internal data;

    function add(
        address target,
        bytes memory callData
    ) external {
        targets.push(target);
        data.push(callData);
    }

    function run() external {
        for (uint256 i; i < targets.length; ++i) {
            (bool ok, bytes memory err) = targets[i].call(data[i]);
            if (!ok) {
                assembly ("memory-safe") {
                    revert(add(err, 32), mload(err))
                }
            }
        }
        delete targets;
        delete data;
    }
}
