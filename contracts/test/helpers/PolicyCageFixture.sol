// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PricedAssetsTest } from "./PricedAssetsTest.sol";
import { TokenFeed } from "../../src/libraries/UsdValuation.sol";
import { PolicyCageEnforcer, Constitution, AssetBound } from "../../src/enforcers/PolicyCageEnforcer.sol";
import { TestVault } from "../../src/test-assets/TestVault.sol";

/// Stands in for the PolicyCage: the hash it holds per Golem key.
contract CageStub {
    mapping(address => bytes32) public constitutionHash;

    function set(
        address golem,
        bytes32 hash
    ) external {
        constitutionHash[golem] = hash;
    }
}

/// The owner's portfolio for the PolicyCageEnforcer suites: USDC the base asset, WETH (at most 25 %) and a
/// USDC vault (at most 50 %) approved, DAI priced but not approved, UNL neither. The delegator holds 10,000
/// USDC. `redeem` runs beforeHook, the execution's effect on the owner's balances, then afterHook, as the
/// DelegationManager does around one redemption.
abstract contract PolicyCageFixture is PricedAssetsTest {
    address internal constant GOLEM = address(0x601E);
    uint16 internal constant WETH_BPS = 2500;
    uint16 internal constant VAULT_BPS = 5000;
    uint16 internal constant DRAWDOWN_BPS = 1500;

    PolicyCageEnforcer internal enforcer;
    CageStub internal cage;
    TestVault internal vault;

    function setUpCage() internal {
        setUpAssets();
        enforcer = new PolicyCageEnforcer(address(0), 0);
        cage = new CageStub();
        vault = new TestVault(address(usdc));
        usdc.mint(DELEGATOR, 10_000e6);
        cage.set(GOLEM, keccak256(constitutionBytes(constitution())));
    }

    function constitution() internal view returns (Constitution memory c) {
        return constitution(WETH_BPS, VAULT_BPS, DRAWDOWN_BPS);
    }

    /// WETH and the vault, sorted by address as the encoding requires.
    function constitution(
        uint16 wethBps,
        uint16 vaultBps,
        uint16 drawdownBps
    ) internal view returns (Constitution memory c) {
        c.v = 1;
        c.baseAsset = address(usdc);
        c.assets = new AssetBound[](2);
        AssetBound memory w = AssetBound(address(weth), wethBps);
        AssetBound memory v = AssetBound(address(vault), vaultBps);
        (c.assets[0], c.assets[1]) = address(weth) < address(vault) ? (w, v) : (v, w);
        c.maxTransactionUsd = 1000e6;
        c.maxSessionUsd = 10_000e6;
        c.maxDayUsd = 5000e6;
        c.maxDrawdownBps = drawdownBps;
        c.revokeOnMask = 1;
    }

    function constitutionBytes(
        Constitution memory c
    ) internal pure returns (bytes memory) {
        return abi.encode(c);
    }

    function termsOf(
        Constitution memory c
    ) internal view returns (bytes memory) {
        return abi.encode(address(cage), GOLEM, MAX_AGE, constitutionBytes(c), tokenFeedsOnly());
    }

    function terms() internal view returns (bytes memory) {
        return termsOf(constitution());
    }

    /// An execution the hooks see: a call to the token given up (its transfer out of the account).
    function swapCall(
        address tokenIn,
        uint256 amountIn
    ) internal pure returns (bytes memory) {
        return abi.encodePacked(tokenIn, uint256(0), abi.encodeWithSelector(0xa9059cbb, PAYEE, amountIn));
    }

    function beforeRedeem(
        bytes memory t,
        bytes memory execution
    ) internal {
        vm.prank(MANAGER);
        enforcer.beforeHook(t, "", SINGLE, execution, HASH, DELEGATOR, GOLEM);
    }

    function afterRedeem(
        bytes memory t,
        bytes memory execution
    ) internal {
        vm.prank(MANAGER);
        enforcer.afterHook(t, "", SINGLE, execution, HASH, DELEGATOR, GOLEM);
    }

    /// The owner gives `amountIn` of tokenIn and receives amountOut of tokenOut (minted: the counterparty).
    function move(
        address tokenIn,
        uint256 amountIn,
        address tokenOut,
        uint256 amountOut
    ) internal {
        if (amountIn != 0) {
            vm.prank(DELEGATOR);
            (bool ok,) = tokenIn.call(abi.encodeWithSelector(0xa9059cbb, PAYEE, amountIn));
            require(ok, "transfer out");
        }
        if (amountOut != 0) {
            if (tokenOut == address(vault)) {
                usdc.mint(address(this), amountOut);
                usdc.approve(address(vault), amountOut);
                vault.deposit(amountOut, DELEGATOR);
            } else {
                (bool ok,) = tokenOut.call(abi.encodeWithSignature("mint(address,uint256)", DELEGATOR, amountOut));
                require(ok, "mint");
            }
        }
    }

    /// One redemption: beforeHook, the swap's effect, afterHook (reverts bubble up).
    function swap(
        address tokenIn,
        uint256 amountIn,
        address tokenOut,
        uint256 amountOut
    ) internal {
        bytes memory t = terms();
        bytes memory e = swapCall(tokenIn, amountIn);
        beforeRedeem(t, e);
        move(tokenIn, amountIn, tokenOut, amountOut);
        afterRedeem(t, e);
    }

    function feeds() internal view returns (TokenFeed[] memory) {
        return tokenFeedsOnly();
    }
}
