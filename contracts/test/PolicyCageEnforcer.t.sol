// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PolicyCageFixture } from "./helpers/PolicyCageFixture.sol";
import { TokenFeed, UsdValuation } from "../src/libraries/UsdValuation.sol";
import { PolicyCageEnforcer, Constitution, AssetBound } from "../src/enforcers/PolicyCageEnforcer.sol";
import { Execution } from "../src/libraries/ExecutionLib.sol";

/// Each test is one transaction, as a redemption is: the balances beforeHook records in transient storage
/// are there for afterHook.
contract PolicyCageEnforcerTest is PolicyCageFixture {
    function setUp() public {
        setUpCage();
    }

    function _hash() internal view returns (bytes32) {
        return keccak256(constitutionBytes(constitution()));
    }

    function _mark() internal view returns (uint256) {
        return enforcer.highWaterMark(MANAGER, DELEGATOR, _hash());
    }

    // ------------------------------------------------------------ constitutionHash

    function test_constitutionHash_matchingCagePasses() public {
        swap(address(usdc), 1500e6, address(weth), 0.5e18);
        assertEq(weth.balanceOf(DELEGATOR), 0.5e18);
    }

    function test_constitutionHash_changedCageRefusesEveryRedemption() public {
        bytes32 next = keccak256("the owner's new constitution");
        cage.set(GOLEM, next);
        bytes memory e = swapCall(address(weth), 1);
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.ConstitutionHash.selector, GOLEM, _hash(), next));
        beforeRedeem(terms(), e);
    }

    function test_constitutionHash_noConstitutionRefuses() public {
        cage.set(GOLEM, bytes32(0));
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.ConstitutionHash.selector, GOLEM, _hash(), bytes32(0)));
        beforeRedeem(terms(), swapCall(address(usdc), 1));
    }

    // ------------------------------------------------------------ approvedAsset

    function test_approvedAsset_pricedUnapprovedTokenIncreasedRefused() public {
        bytes memory e = swapCall(address(usdc), 1000e6);
        beforeRedeem(terms(), e);
        move(address(usdc), 1000e6, address(dai), 1000e18);
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.ApprovedAsset.selector, address(dai), 0, 1000e18));
        afterRedeem(terms(), e);
    }

    function test_approvedAsset_calledUnapprovedTokenIncreasedRefused() public {
        bytes memory e = abi.encodePacked(address(unlisted), uint256(0), abi.encodeWithSignature("claim()"));
        beforeRedeem(terms(), e);
        move(address(usdc), 0, address(unlisted), 5e18);
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.ApprovedAsset.selector, address(unlisted), 0, 5e18));
        afterRedeem(terms(), e);
    }

    /// A token neither priced in the terms nor called is not watched: the delegation's target caveats bound it.
    function test_approvedAsset_unwatchedTokenIsNotSeen() public {
        swap(address(usdc), 100e6, address(unlisted), 5e18);
        assertEq(unlisted.balanceOf(DELEGATOR), 5e18);
    }

    function test_approvedAsset_spendingAnUnapprovedAssetPasses() public {
        dai.mint(DELEGATOR, 100e18);
        swap(address(dai), 100e18, address(usdc), 100e6);
        assertEq(usdc.balanceOf(DELEGATOR), 10_100e6);
    }

    // ------------------------------------------------------------ maxConcentration

    function test_maxConcentration_overTheBoundRefused() public {
        bytes memory e = swapCall(address(usdc), 3000e6);
        beforeRedeem(terms(), e);
        move(address(usdc), 3000e6, address(weth), 1e18);
        vm.expectRevert(
            abi.encodeWithSelector(PolicyCageEnforcer.MaxConcentration.selector, address(weth), 3000e6, 10_000e6, 3000, WETH_BPS)
        );
        afterRedeem(terms(), e);
    }

    function test_maxConcentration_atTheBoundPasses() public {
        swap(address(usdc), 2500e6, address(weth), uint256(2500e18) / 3000);
        assertEq(_mark(), 10_000e6);
    }

    function test_maxConcentration_vaultSharesValuedThroughConvertToAssets() public {
        usdc.mint(address(vault), 0); // empty vault: 1 share per asset unit
        swap(address(usdc), 4000e6, address(vault), 4000e6);
        bytes memory e = swapCall(address(usdc), 2000e6);
        beforeRedeem(terms(), e);
        move(address(usdc), 2000e6, address(vault), 2000e6);
        vm.expectRevert(
            abi.encodeWithSelector(
                PolicyCageEnforcer.MaxConcentration.selector, address(vault), 6000e6, 10_000e6, 6000, VAULT_BPS
            )
        );
        afterRedeem(terms(), e);
    }

    /// Only the asset the execution increased is bound: an asset already over its bound may be reduced.
    function test_maxConcentration_reducingAnOverweightPositionPasses() public {
        weth.mint(DELEGATOR, 2e18); // $6,000 of $16,000: 37.5 %
        swap(address(weth), 1e18, address(usdc), 3000e6);
        assertEq(weth.balanceOf(DELEGATOR), 1e18);
        assertEq(_mark(), 0, "a close takes no risk and reads no price");
    }

    // ------------------------------------------------------------ maxDrawdown

    function test_maxDrawdown_newRiskPastTheBoundRefused() public {
        swap(address(usdc), 1000e6, address(weth), uint256(1000e18) / 3000); // mark $10,000
        assertEq(_mark(), 10_000e6);
        wethFeed.setAnswer(1); // WETH to ~0: the portfolio is $9,000
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, 1000e6); // and $1,000 lost: $8,000, 20 % below the mark
        bytes memory e = swapCall(address(usdc), 100e6);
        beforeRedeem(terms(), e);
        move(address(usdc), 100e6, address(weth), 1e18);
        (uint256 after_,,) = (uint256(7900e6) + 1, 0, 0); // 7,900 USDC + 1.33 WETH at 1e-8 USD, rounded up
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.MaxDrawdown.selector, 10_000e6, after_, 2099, DRAWDOWN_BPS));
        afterRedeem(terms(), e);
    }

    function test_maxDrawdown_withinTheBoundPasses() public {
        swap(address(usdc), 1000e6, address(weth), uint256(1000e18) / 3000);
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, 1400e6); // $8,600: 14 % below
        swap(address(usdc), 100e6, address(weth), uint256(100e18) / 3000);
        assertEq(_mark(), 10_000e6);
    }

    function test_maxDrawdown_closePastTheBoundPassesEvenWithAStaleFeed() public {
        swap(address(usdc), 1000e6, address(weth), uint256(1000e18) / 3000);
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, 5000e6);
        vm.warp(block.timestamp + 2 days); // every feed stale
        swap(address(weth), uint256(1000e18) / 3000, address(usdc), 900e6);
        assertEq(weth.balanceOf(DELEGATOR), 0);
    }

    function test_maxDrawdown_markRisesAndIsKeptPerConstitution() public {
        swap(address(usdc), 1000e6, address(weth), uint256(1000e18) / 3000);
        usdc.mint(DELEGATOR, 2000e6);
        swap(address(usdc), 100e6, address(weth), uint256(100e18) / 3000);
        assertEq(_mark(), 12_000e6);
        Constitution memory next = constitution(WETH_BPS, VAULT_BPS, 1000);
        assertEq(enforcer.highWaterMark(MANAGER, DELEGATOR, keccak256(constitutionBytes(next))), 0);
        assertEq(enforcer.highWaterMark(OTHER_MANAGER, DELEGATOR, _hash()), 0);
    }

    function test_newRisk_stalePriceRefused() public {
        vm.warp(block.timestamp + 2 days);
        bytes memory e = swapCall(address(usdc), 100e6);
        beforeRedeem(terms(), e);
        move(address(usdc), 100e6, address(weth), 1e16);
        vm.expectRevert(
            abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(usdcFeed), block.timestamp - 2 days, MAX_AGE)
        );
        afterRedeem(terms(), e);
    }

    function test_newRisk_unpricedApprovedAssetRefused() public {
        bytes memory t = abi.encode(address(cage), GOLEM, MAX_AGE, constitutionBytes(constitution()), _feedsWithoutWeth());
        bytes memory e = swapCall(address(usdc), 100e6);
        beforeRedeem(t, e);
        move(address(usdc), 100e6, address(weth), 1e16);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.UnpricedAsset.selector, address(weth)));
        afterRedeem(t, e);
    }

    function _feedsWithoutWeth() internal view returns (TokenFeed[] memory f) {
        f = new TokenFeed[](1);
        f[0] = TokenFeed(address(usdc), 6, address(usdcFeed));
    }

    function test_batch_watchesEveryTarget() public {
        Execution[] memory ex = execs(
            Execution(address(usdc), 0, abi.encodeWithSelector(0x095ea7b3, PAYEE, 100e6)),
            Execution(address(unlisted), 0, abi.encodeWithSignature("claim()"))
        );
        bytes memory e = batch(ex);
        vm.prank(MANAGER);
        enforcer.beforeHook(terms(), "", BATCH, e, HASH, DELEGATOR, GOLEM);
        move(address(usdc), 0, address(unlisted), 1);
        vm.prank(MANAGER);
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.ApprovedAsset.selector, address(unlisted), 0, 1));
        enforcer.afterHook(terms(), "", BATCH, e, HASH, DELEGATOR, GOLEM);
    }

    // ------------------------------------------------------------ terms

    function test_getTermsInfo_roundTrips() public view {
        (address c, address g, uint32 age, Constitution memory k, bytes32 h, TokenFeed[] memory f) =
            enforcer.getTermsInfo(terms());
        assertEq(c, address(cage));
        assertEq(g, GOLEM);
        assertEq(uint256(age), MAX_AGE);
        assertEq(h, _hash());
        assertEq(k.assets.length, 2);
        assertEq(uint256(k.maxDrawdownBps), DRAWDOWN_BPS);
        assertEq(f.length, 3);
    }

    function _expectInvalid(
        bytes memory t,
        string memory field,
        string memory rule
    ) internal {
        vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.InvalidTerms.selector, field, rule));
        enforcer.getTermsInfo(t);
    }

    function test_terms_zeroCageOrGolem() public {
        bytes memory c = constitutionBytes(constitution());
        _expectInvalid(abi.encode(address(0), GOLEM, MAX_AGE, c, feeds()), "policyCage", "must be the PolicyCage's address");
        _expectInvalid(abi.encode(address(cage), address(0), MAX_AGE, c, feeds()), "golem", "must be the Golem's key");
    }

    function test_terms_dirtyWords() public {
        bytes memory c = constitutionBytes(constitution());
        _expectInvalid(abi.encode(uint256(1) << 160, GOLEM, MAX_AGE, c, feeds()), "policyCage", "must be an address");
        _expectInvalid(
            abi.encode(address(cage), GOLEM, uint256(1) << 32, c, feeds()), "maxPriceAge", "must be a uint32 of seconds"
        );
    }

    function test_terms_constitutionRules() public {
        Constitution memory c = constitution();
        c.v = 2;
        _expectInvalid(termsOf(c), "constitution.v", "must be 1");
        c = constitution();
        c.maxDrawdownBps = 10_001;
        _expectInvalid(termsOf(c), "constitution.maxDrawdownBps", "must be 0..10000 basis points");
        c = constitution();
        c.assets[1].maxConcentrationBps = 10_001;
        _expectInvalid(termsOf(c), "constitution.assets.maxConcentrationBps", "must be 0..10000 basis points");
        c = constitution();
        (c.assets[0], c.assets[1]) = (c.assets[1], c.assets[0]);
        _expectInvalid(termsOf(c), "constitution.assets.address", "must be sorted by address, each once, and not the base asset");
        c = constitution();
        c.maxTransactionUsd = c.maxDayUsd + 1;
        _expectInvalid(termsOf(c), "constitution.maxTransactionUsd", "must not exceed maxSessionUsd or maxDayUsd");
        c = constitution();
        c.baseAsset = address(0);
        _expectInvalid(termsOf(c), "constitution.baseAsset", "must be a non-zero address");
    }

    function test_terms_baseAssetListedAgainRefused() public {
        Constitution memory c = constitution();
        c.assets = new AssetBound[](1);
        c.assets[0] = AssetBound(address(usdc), 100);
        _expectInvalid(termsOf(c), "constitution.assets.address", "must be sorted by address, each once, and not the base asset");
    }

    function test_terms_notTheConstitutionTuple() public {
        _expectInvalid(
            abi.encode(address(cage), GOLEM, MAX_AGE, hex"1234", feeds()),
            "constitution",
            "must be abi.encode of the constitution tuple"
        );
    }

    function test_terms_badLayoutAndFeeds() public {
        bytes memory t = terms();
        bytes memory short = new bytes(t.length - 1);
        for (uint256 i; i < short.length; ++i) {
            short[i] = t[i];
        }
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTermsLength.selector, short.length));
        enforcer.getTermsInfo(short);
        TokenFeed[] memory f = feeds();
        f[1].feed = address(0);
        vm.expectRevert(abi.encodeWithSelector(UsdValuation.InvalidTokenFeed.selector, 1, address(weth), uint8(18), address(0)));
        enforcer.getTermsInfo(abi.encode(address(cage), GOLEM, MAX_AGE, constitutionBytes(constitution()), f));
    }

    // ------------------------------------------------------------ fuzz

    /// A buy passes exactly when the position it leaves is within the bound: ceil(position * 10000 / portfolio).
    function testFuzz_maxConcentration_asModelled(
        uint256 usdIn,
        uint16 wethBps
    ) public {
        usdIn = bound(usdIn, 1e6, 10_000e6);
        wethBps = uint16(bound(wethBps, 0, 10_000));
        Constitution memory c = constitution(wethBps, VAULT_BPS, 10_000);
        cage.set(GOLEM, keccak256(constitutionBytes(c)));
        bytes memory t = termsOf(c);
        uint256 wethOut = usdIn * 1e12 / 3000; // the same dollars in WETH, rounded down
        bytes memory e = swapCall(address(usdc), usdIn);
        beforeRedeem(t, e);
        move(address(usdc), usdIn, address(weth), wethOut);
        uint256 position = refUsd(wethOut, 3000e8, 18, 8);
        uint256 portfolio = 10_000e6 - usdIn + position;
        uint256 bps = (position * 10_000 + portfolio - 1) / portfolio;
        if (wethOut != 0 && bps > wethBps) {
            vm.expectRevert(
                abi.encodeWithSelector(
                    PolicyCageEnforcer.MaxConcentration.selector, address(weth), position, portfolio, bps, wethBps
                )
            );
        }
        afterRedeem(t, e);
    }

    /// New risk passes exactly when the portfolio it leaves is within the bound below the mark.
    function testFuzz_maxDrawdown_asModelled(
        uint256 loss,
        uint16 drawdownBps
    ) public {
        loss = bound(loss, 0, 9000e6);
        drawdownBps = uint16(bound(drawdownBps, 0, 10_000));
        Constitution memory c = constitution(10_000, VAULT_BPS, drawdownBps);
        cage.set(GOLEM, keccak256(constitutionBytes(c)));
        bytes memory t = termsOf(c);
        bytes memory e = swapCall(address(usdc), 300e6);
        beforeRedeem(t, e);
        move(address(usdc), 300e6, address(weth), 0.1e18); // $300 for $300: mark $10,000
        afterRedeem(t, e);
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, loss);
        beforeRedeem(t, e);
        move(address(usdc), 300e6, address(weth), 0.1e18);
        uint256 portfolio = 10_000e6 - loss;
        uint256 dd = loss * 10_000 / 10_000e6;
        if (dd > drawdownBps) {
            vm.expectRevert(abi.encodeWithSelector(PolicyCageEnforcer.MaxDrawdown.selector, 10_000e6, portfolio, dd, drawdownBps));
        }
        afterRedeem(t, e);
    }

    /// Terms cut anywhere are refused with a reason, never an empty revert.
    function testFuzz_truncatedTermsNamedError(
        uint256 cut
    ) public {
        bytes memory t = terms();
        cut = bound(cut, 0, t.length - 1);
        bytes memory s = new bytes(cut);
        for (uint256 i; i < cut; ++i) {
            s[i] = t[i];
        }
        try enforcer.getTermsInfo(s) {
            fail("truncated terms accepted");
        } catch (bytes memory err) {
            assertGe(err.length, 4);
        }
    }
}
