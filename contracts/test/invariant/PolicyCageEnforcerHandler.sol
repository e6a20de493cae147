// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { PolicyCageFixture } from "../helpers/PolicyCageFixture.sol";

/// Random redemptions under the constitution (buys of WETH, the vault or unapproved DAI, sells back to
/// USDC) between random losses, gains and WETH price moves. Each redemption is beforeHook, the
/// execution's effect and afterHook inside one call (one transaction); a refusal undoes the effect, as the
/// DelegationManager's revert does. The handler checks each accepted one against its own arithmetic.
contract PolicyCageEnforcerHandler is PolicyCageFixture {
    uint256 public accepted;
    uint256 public refused;
    uint256 public closes;
    /// Accepted executions that left an asset they increased over its bound, or an unapproved one increased.
    uint256 public violations;
    /// Times the high-water mark went down.
    uint256 public markFell;
    uint256 public lastMark;

    constructor() {
        setUpCage();
    }

    function markNow() public view returns (uint256) {
        return enforcer.highWaterMark(MANAGER, DELEGATOR, keccak256(constitutionBytes(constitution())));
    }

    /// Buys `which` (0 WETH, 1 the vault, 2 DAI) with up to all of the owner's USDC.
    function buy(
        uint256 which,
        uint256 usdIn
    ) external {
        which = which % 3;
        uint256 cash = usdc.balanceOf(DELEGATOR);
        if (cash == 0) return;
        usdIn = 1 + usdIn % cash;
        address out = which == 0 ? address(weth) : which == 1 ? address(vault) : address(dai);
        uint256 amountOut = which == 0 ? usdIn * 1e20 / uint256(wethFeed.latestAnswer()) : which == 1 ? usdIn : usdIn * 1e12;
        _redeem(address(usdc), usdIn, out, amountOut);
    }

    /// Sells part of the WETH or the vault shares for USDC at the feed's price.
    function sell(
        bool shares,
        uint256 part
    ) external {
        address asset = shares ? address(vault) : address(weth);
        (bool ok, bytes memory ret) = asset.staticcall(abi.encodeWithSignature("balanceOf(address)", DELEGATOR));
        uint256 held = ok ? abi.decode(ret, (uint256)) : 0;
        if (held == 0) return;
        part = 1 + part % held;
        uint256 usdOut = shares ? vault.convertToAssets(part) : part * uint256(wethFeed.latestAnswer()) / 1e20;
        _redeem(asset, part, address(usdc), usdOut);
        ++closes;
    }

    function loss(
        uint256 usd
    ) external {
        uint256 cash = usdc.balanceOf(DELEGATOR);
        if (cash == 0) return;
        vm.prank(DELEGATOR);
        usdc.transfer(PAYEE, usd % cash);
    }

    function gain(
        uint256 usd
    ) external {
        usdc.mint(DELEGATOR, usd % 5000e6);
    }

    function movePrice(
        uint256 answer
    ) external {
        wethFeed.setAnswer(int256(bound(answer, 100e8, 10_000e8)));
    }

    function _redeem(
        address tokenIn,
        uint256 amountIn,
        address tokenOut,
        uint256 amountOut
    ) internal {
        uint256 daiBefore = dai.balanceOf(DELEGATOR);
        uint256 outBefore = _balance(tokenOut);
        try this.redeemOnce(tokenIn, amountIn, tokenOut, amountOut) {
            ++accepted;
            if (dai.balanceOf(DELEGATOR) > daiBefore) ++violations;
            if (tokenOut != address(usdc) && _balance(tokenOut) > outBefore && _overBound(tokenOut)) ++violations;
        } catch {
            ++refused;
        }
        uint256 m = markNow();
        if (m < lastMark) ++markFell;
        lastMark = m;
    }

    function redeemOnce(
        address tokenIn,
        uint256 amountIn,
        address tokenOut,
        uint256 amountOut
    ) external {
        require(msg.sender == address(this), "self only");
        swap(tokenIn, amountIn, tokenOut, amountOut);
    }

    function _balance(
        address token
    ) internal view returns (uint256) {
        (, bytes memory ret) = token.staticcall(abi.encodeWithSignature("balanceOf(address)", DELEGATOR));
        return abi.decode(ret, (uint256));
    }

    /// The position over its bound, by the handler's own arithmetic (ceil bps of the portfolio).
    function _overBound(
        address asset
    ) internal view returns (bool) {
        uint256 answer = uint256(wethFeed.latestAnswer());
        uint256 wethUsd = refUsd(weth.balanceOf(DELEGATOR), answer, 18, 8);
        uint256 vaultUsd = vault.convertToAssets(vault.balanceOf(DELEGATOR));
        uint256 portfolio = usdc.balanceOf(DELEGATOR) + wethUsd + vaultUsd;
        uint256 position = asset == address(weth) ? wethUsd : vaultUsd;
        uint256 limit = asset == address(weth) ? WETH_BPS : VAULT_BPS;
        if (portfolio == 0) return true;
        return (position * 10_000 + portfolio - 1) / portfolio > limit;
    }
}
