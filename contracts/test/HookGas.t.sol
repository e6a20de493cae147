// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./helpers/PricedAssetsTest.sol";
import { Execution } from "../src/libraries/ExecutionLib.sol";
import { ICaveatEnforcer } from "../src/interfaces/ICaveatEnforcer.sol";
import { DailySpendLimitEnforcer } from "../src/enforcers/DailySpendLimitEnforcer.sol";
import { ReplicantBudgetEnforcer } from "../src/enforcers/ReplicantBudgetEnforcer.sol";
import { MaxSlippageEnforcer } from "../src/enforcers/MaxSlippageEnforcer.sol";
import { VaultNAVEnforcer } from "../src/enforcers/VaultNAVEnforcer.sol";
import { KnowledgeRoyaltyEnforcer } from "../src/enforcers/KnowledgeRoyaltyEnforcer.sol";
import { TestSwapRouter } from "../src/test-assets/TestSwapRouter.sol";
import { TestVault } from "../src/test-assets/TestVault.sol";
import { PolicyCageEnforcer, Constitution, AssetBound } from "../src/enforcers/PolicyCageEnforcer.sol";
import { CageStub } from "./helpers/PolicyCageFixture.sol";

interface VmCool {
    function cool(
        address target
    ) external;
}

/// Gas of each beforeHook as the DelegationManager pays it (external CALL included; every account and slot
/// made cold before each measurement, as in a fresh transaction). Feeds are MockPriceFeed: a real Chainlink
/// proxy adds one cold hop to its aggregator (~2.6k more per feed). Run with -vv to see the numbers; the
/// assertions are loose ceilings that fail if a change makes a hook markedly more expensive.
contract HookGasTest is PricedAssetsTest {
    event log_named_uint(string key, uint256 val);

    DailySpendLimitEnforcer daily;
    ReplicantBudgetEnforcer replicant;
    MaxSlippageEnforcer slippage;
    VaultNAVEnforcer nav;
    KnowledgeRoyaltyEnforcer royalty;
    TestVault vault;

    function setUp() public {
        setUpAssets();
        daily = new DailySpendLimitEnforcer(address(0), 0);
        replicant = new ReplicantBudgetEnforcer(address(0), 0);
        slippage = new MaxSlippageEnforcer();
        nav = new VaultNAVEnforcer();
        royalty = new KnowledgeRoyaltyEnforcer();
        vault = new TestVault(address(usdc));
        usdc.mint(address(this), 10_000e6);
        usdc.approve(address(vault), 10_000e6);
        vault.deposit(10_000e6, address(this));
    }

    function _gas(
        address enforcer,
        bytes memory terms,
        bytes32 mode,
        bytes memory execution
    ) internal returns (uint256 used) {
        bytes memory data = abi.encodeCall(ICaveatEnforcer.beforeHook, (terms, "", mode, execution, HASH, DELEGATOR, REDEEMER));
        _coolAll();
        vm.prank(MANAGER);
        uint256 before = gasleft();
        (bool ok,) = enforcer.call(data);
        used = before - gasleft();
        assertTrue(ok, "hook reverted");
    }

    function _coolAll() internal {
        address[13] memory all = [
            address(daily),
            address(replicant),
            address(slippage),
            address(nav),
            address(royalty),
            address(vault),
            address(usdc),
            address(weth),
            address(dai),
            address(ethFeed),
            address(usdcFeed),
            address(wethFeed),
            address(daiFeed)
        ];
        for (uint256 i; i < all.length; ++i) {
            VmCool(address(vm)).cool(all[i]);
        }
    }

    function _report(
        string memory name,
        uint256 used,
        uint256 ceiling
    ) internal {
        emit log_named_uint(name, used);
        assertLe(used, ceiling, name);
    }

    function test_gas_dailySpendLimit() public {
        bytes memory terms = abi.encode(uint256(1_000_000e6), MAX_AGE, allFeeds());
        _report(
            "DailySpendLimit single transfer, first ever",
            _gas(address(daily), terms, SINGLE, single(address(usdc), 0, transferCall(1e6))),
            60_000
        );
        _report(
            "DailySpendLimit single transfer, later the same day",
            _gas(address(daily), terms, SINGLE, single(address(usdc), 0, transferCall(1e6))),
            45_000
        );
        vm.warp(block.timestamp + 1 days);
        usdcFeed.setAnswer(1e8);
        ethFeed.setAnswer(3000e8);
        daiFeed.setAnswer(1e18);
        _report(
            "DailySpendLimit single transfer, first of a later day",
            _gas(address(daily), terms, SINGLE, single(address(usdc), 0, transferCall(1e6))),
            45_000
        );
        _report("DailySpendLimit native", _gas(address(daily), terms, SINGLE, single(PAYEE, 1e15, "")), 45_000);
        Execution[] memory e = execs(
            Execution(PAYEE, 1e15, ""),
            Execution(address(usdc), 0, approveCall(1e6)),
            Execution(address(dai), 0, transferCall(1e18))
        );
        _report("DailySpendLimit batch of 3 (ETH, USDC, DAI)", _gas(address(daily), terms, BATCH, batch(e)), 70_000);
        _report(
            "DailySpendLimit zero-value call",
            _gas(address(daily), terms, SINGLE, single(address(usdc), 0, approveCall(0))),
            20_000
        );
    }

    function test_gas_replicantBudget() public {
        bytes memory terms = abi.encode(uint256(1_000_000e6), uint64(7 days), MAX_AGE, allFeeds());
        _report(
            "ReplicantBudget first redemption (activation)",
            _gas(address(replicant), terms, SINGLE, single(address(usdc), 0, transferCall(1e6))),
            60_000
        );
        _report(
            "ReplicantBudget later redemption",
            _gas(address(replicant), terms, SINGLE, single(address(usdc), 0, transferCall(1e6))),
            45_000
        );
    }

    function test_gas_maxSlippage() public {
        bytes memory terms = abi.encode(uint16(50), MAX_AGE, tokenFeedsOnly());
        bytes memory single02 = abi.encodeWithSelector(
            TestSwapRouter.exactInputSingle.selector,
            TestSwapRouter.ExactInputSingleParams(address(usdc), address(weth), 500, DELEGATOR, 3000e6, 1e18, 0)
        );
        _report(
            "MaxSlippage exactInputSingle", _gas(address(slippage), terms, SINGLE, single(address(0x5e7e), 0, single02)), 45_000
        );
        bytes memory path = abi.encodePacked(address(usdc), uint24(500), address(weth), uint24(3000), address(dai));
        bytes memory multi = abi.encodeWithSelector(
            TestSwapRouter.exactInput.selector, TestSwapRouter.ExactInputParams(path, DELEGATOR, 3000e6, 3000e18)
        );
        _report(
            "MaxSlippage exactInput 2 hops", _gas(address(slippage), terms, SINGLE, single(address(0x5e7e), 0, multi)), 45_000
        );
        _report(
            "MaxSlippage non-swap call", _gas(address(slippage), terms, SINGLE, single(address(usdc), 0, transferCall(1))), 15_000
        );
    }

    function test_gas_vaultNAV() public {
        bytes memory terms = abi.encode(address(vault), uint16(1000));
        bytes memory redeem = abi.encodeWithSignature("redeem(uint256,address,address)", 100e6, DELEGATOR, DELEGATOR);
        _report("VaultNAV redeem", _gas(address(nav), terms, SINGLE, single(address(vault), 0, redeem)), 30_000);
        Execution[] memory e = execs(
            Execution(address(usdc), 0, approveCall(100e6)),
            Execution(address(vault), 0, abi.encodeWithSignature("deposit(uint256,address)", 100e6, DELEGATOR))
        );
        _report("VaultNAV approve + deposit batch", _gas(address(nav), terms, BATCH, batch(e)), 30_000);
    }

    /// PolicyCage: beforeHook (the cage's hash, the watched balances) and afterHook (the balances again;
    /// for new risk, every portfolio asset priced) for a constitution of USDC, WETH and a USDC vault, with
    /// USDC, WETH and DAI feeds: 5 watched balances.
    function test_gas_policyCage() public {
        PolicyCageEnforcer cageEnforcer = new PolicyCageEnforcer(address(0), 0);
        CageStub cage = new CageStub();
        Constitution memory c;
        c.v = 1;
        c.baseAsset = address(usdc);
        c.assets = new AssetBound[](2);
        AssetBound memory w = AssetBound(address(weth), 2500);
        AssetBound memory v = AssetBound(address(vault), 5000);
        (c.assets[0], c.assets[1]) = address(weth) < address(vault) ? (w, v) : (v, w);
        c.maxTransactionUsd = 1000e6;
        c.maxSessionUsd = 1000e6;
        c.maxDayUsd = 1000e6;
        c.maxDrawdownBps = 1500;
        bytes memory encoded = abi.encode(c);
        cage.set(address(0x601E), keccak256(encoded));
        bytes memory terms = abi.encode(address(cage), address(0x601E), MAX_AGE, encoded, tokenFeedsOnly());
        usdc.mint(DELEGATOR, 10_000e6);
        bytes memory buy = single(address(usdc), 0, transferCall(1000e6));

        _report("PolicyCage beforeHook", _policyGas(cageEnforcer, cage, ICaveatEnforcer.beforeHook.selector, terms, buy), 60_000);
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, 1000e6);
        weth.mint(DELEGATOR, uint256(1000e18) / 3000);
        _report(
            "PolicyCage afterHook, a buy (new risk, first mark)",
            _policyGas(cageEnforcer, cage, ICaveatEnforcer.afterHook.selector, terms, buy),
            110_000
        );

        bytes memory close = single(address(weth), 0, transferCall(uint256(500e18) / 3000));
        _policyGas(cageEnforcer, cage, ICaveatEnforcer.beforeHook.selector, terms, close);
        vm.prank(DELEGATOR);
        weth.transfer(PAYEE, uint256(500e18) / 3000);
        usdc.mint(DELEGATOR, 500e6);
        _report(
            "PolicyCage afterHook, a close (no price read)",
            _policyGas(cageEnforcer, cage, ICaveatEnforcer.afterHook.selector, terms, close),
            40_000
        );
    }

    function _policyGas(
        PolicyCageEnforcer cageEnforcer,
        CageStub cage,
        bytes4 hook,
        bytes memory terms,
        bytes memory execution
    ) internal returns (uint256 used) {
        bytes memory data = abi.encodeWithSelector(hook, terms, "", SINGLE, execution, HASH, DELEGATOR, REDEEMER);
        _coolAll();
        VmCool(address(vm)).cool(address(cageEnforcer));
        VmCool(address(vm)).cool(address(cage));
        vm.prank(MANAGER);
        uint256 before = gasleft();
        (bool ok,) = address(cageEnforcer).call(data);
        used = before - gasleft();
        assertTrue(ok, "hook reverted");
    }

    function test_gas_knowledgeRoyalty() public {
        bytes memory terms = abi.encode(address(usdc), address(0xA07), uint16(1000));
        Execution[] memory e = execs(
            Execution(address(usdc), 0, abi.encodeWithSelector(0xa9059cbb, PAYEE, 100e6)),
            Execution(address(usdc), 0, abi.encodeWithSelector(0xa9059cbb, address(0xA07), 10e6))
        );
        _report("KnowledgeRoyalty sale + royalty batch", _gas(address(royalty), terms, BATCH, batch(e)), 15_000);
    }
}
