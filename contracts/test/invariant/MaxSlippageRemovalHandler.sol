// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { HookHandlerBase } from "./HookHandlerBase.sol";
import { Execution } from "../../src/libraries/ExecutionLib.sol";
import { UsdValuation, TokenFeed } from "../../src/libraries/UsdValuation.sol";
import { MaxSlippageEnforcer } from "../../src/enforcers/MaxSlippageEnforcer.sol";
import { TestToken } from "../../src/test-assets/TestToken.sol";
import { MockPriceFeed } from "../../src/test-assets/MockPriceFeed.sol";
import { TestPositionManager } from "../../src/test-assets/TestPositionManager.sol";
import { TestUniswapV3Pool } from "../../src/test-assets/TestUniswapV3Pool.sol";

/// Random liquidity removals against MaxSlippageEnforcer: decreaseLiquidity with any minimums, alone or in
/// a batch after removals, collects, approvals or calls on another manager, default or try-mode, while the
/// pool's price and the feeds move and go stale. The model: the first call before a removal that is not a
/// removal or collect on the same manager refuses; then a stale or non-positive feed; then a pool price
/// further from the feeds' than the cap.
contract MaxSlippageRemovalHandler is HookHandlerBase {
    uint32 internal constant MAX_AGE = 3600;
    uint16 internal constant MAX_BPS = 100;
    uint256 internal constant Q96 = 2 ** 96;

    MaxSlippageEnforcer public immutable enforcer;
    TestPositionManager public immutable manager;
    TestPositionManager public immutable otherManager;
    TestUniswapV3Pool public immutable pool;
    TestToken public immutable token0; // 6 decimals, 8-decimal feed
    TestToken public immutable token1; // 18 decimals, 8-decimal feed
    MockPriceFeed public immutable feed0;
    MockPriceFeed public immutable feed1;
    bytes internal terms;
    uint256 internal tokenId;

    uint256 public offFeedsAccepted; // an accepted removal from a pool further from the feeds than the cap
    uint256 public acceptedRemovals;
    uint256 public acceptedWithZeroMinimums;
    uint256 public refusedOffFeeds;
    uint256 public refusedAfterOtherCall;
    uint256 public refusedStale;

    constructor() {
        enforcer = new MaxSlippageEnforcer();
        TestToken a = new TestToken("USD Coin", "USDC", 6);
        TestToken b = new TestToken("Wrapped Ether", "WETH", 18);
        // Sorted as the manager requires; which of the two is USDC does not matter to the rule.
        (token0, token1) = address(a) < address(b) ? (a, b) : (b, a);
        feed0 = new MockPriceFeed(8, 1e8, "token0 / USD");
        feed1 = new MockPriceFeed(8, 1e8, "token1 / USD");
        TokenFeed[] memory feeds = new TokenFeed[](2);
        feeds[0] = TokenFeed(address(token0), token0.decimals(), address(feed0));
        feeds[1] = TokenFeed(address(token1), token1.decimals(), address(feed1));
        terms = abi.encode(MAX_BPS, MAX_AGE, feeds);
        manager = new TestPositionManager();
        otherManager = new TestPositionManager();
        // Equal USD on both sides at $1 each: the pool starts at the feeds' price.
        uint256 amount0 = 10 ** token0.decimals();
        uint256 amount1 = 10 ** token1.decimals();
        token0.mint(address(this), 2 * amount0);
        token1.mint(address(this), 2 * amount1);
        token0.approve(address(manager), amount0);
        token1.approve(address(manager), amount1);
        token0.approve(address(otherManager), amount0);
        token1.approve(address(otherManager), amount1);
        TestPositionManager.MintParams memory p = TestPositionManager.MintParams(
            address(token0), address(token1), 500, -600, 600, amount0, amount1, 0, 0, DELEGATOR, type(uint256).max
        );
        (tokenId,,,) = manager.mint(p);
        otherManager.mint(p);
        pool = TestUniswapV3Pool(manager.getPool(address(token0), address(token1), 500));
    }

    // ------------------------------------------------------------------ the world moves

    function warp(
        uint256 seed
    ) external {
        vm.warp(block.timestamp + bound(seed, 0, 30 minutes));
    }

    function refreshPrices() external {
        (, int256 a0,,,) = feed0.latestRoundData();
        (, int256 a1,,,) = feed1.latestRoundData();
        feed0.setAnswer(a0);
        feed1.setAnswer(a1);
    }

    function setPrice(
        bool first,
        uint256 seed
    ) external {
        (first ? feed0 : feed1).setAnswer(int256(bound(seed, 0.5e8, 2e8)));
    }

    function makeStale(
        bool first,
        uint256 age
    ) external {
        MockPriceFeed f = first ? feed0 : feed1;
        age = bound(age, MAX_AGE - 1, 2 * uint256(MAX_AGE));
        (, int256 answer,,,) = f.latestRoundData();
        f.setRoundData(answer, block.timestamp > age ? block.timestamp - age : 0);
    }

    /// A swap through the pool (a sandwich's first leg, or ordinary trading): within 2 % of the feeds.
    function movePool(
        uint256 seed
    ) external {
        uint256 feed = _feedX96();
        if (feed == 0) return;
        uint256 bps = bound(seed >> 1, 0, 200);
        uint256 target = seed % 2 == 0 ? feed * (10_000 + bps) / 10_000 : feed * (10_000 - bps) / 10_000;
        pool.movePrice(uint160(_sqrt(target * Q96)));
    }

    // ------------------------------------------------------------------ redemptions

    function remove(
        uint256 seed
    ) external {
        uint256 before = seed % 5; // 0: none, 1: a collect, 2: a removal, 3: an approval, 4: a collect elsewhere
        bool tryMode = (seed >> 3) % 4 == 0;
        bool zeroMinimums = (seed >> 5) % 2 == 0;
        uint256 min0 = zeroMinimums ? 0 : _rand(seed, 1);
        uint256 min1 = zeroMinimums ? 0 : _rand(seed, 2);
        Execution memory dec = Execution(
            address(manager),
            0,
            abi.encodeWithSelector(
                TestPositionManager.decreaseLiquidity.selector,
                TestPositionManager.DecreaseLiquidityParams(tokenId, 1, min0, min1, type(uint256).max)
            )
        );
        Execution[] memory e;
        if (before == 0) {
            e = new Execution[](1);
            e[0] = dec;
        } else {
            e = new Execution[](2);
            e[1] = dec;
            if (before == 1 || before == 4) {
                e[0] = Execution(
                    before == 1 ? address(manager) : address(otherManager),
                    0,
                    abi.encodeWithSelector(
                        TestPositionManager.collect.selector,
                        TestPositionManager.CollectParams(tokenId, DELEGATOR, type(uint128).max, type(uint128).max)
                    )
                );
            } else if (before == 2) {
                e[0] = dec;
            } else {
                e[0] = Execution(address(token0), 0, abi.encodeWithSelector(0x095ea7b3, address(manager), 1));
            }
        }
        bool asBatch = e.length > 1 || (seed >> 7) % 2 == 0;
        bytes memory want = _model(e.length, before);
        bool ok = _run(
            address(enforcer),
            terms,
            _mode(asBatch ? BATCH : SINGLE, tryMode ? TRY_EXEC : DEFAULT_EXEC),
            _encode(e, asBatch),
            want
        );
        if (ok) {
            acceptedRemovals++;
            if (zeroMinimums) acceptedWithZeroMinimums++;
            if (!_fresh() || _deviationBps() > MAX_BPS) offFeedsAccepted++;
        } else if (want.length >= 4) {
            bytes4 sel = bytes4(want);
            if (sel == MaxSlippageEnforcer.PoolPriceOffFeeds.selector) refusedOffFeeds++;
            else if (sel == MaxSlippageEnforcer.LiquidityRemovalAfterOtherCall.selector) refusedAfterOtherCall++;
            else if (sel == UsdValuation.StalePrice.selector) refusedStale++;
        }
    }

    // ------------------------------------------------------------------ the model

    function _model(
        uint256 count,
        uint256 before
    ) internal view returns (bytes memory) {
        if (count == 2 && (before == 3 || before == 4)) {
            return abi.encodeWithSelector(MaxSlippageEnforcer.LiquidityRemovalAfterOtherCall.selector, 1, 0);
        }
        (, int256 a0,, uint256 u0,) = feed0.latestRoundData();
        (, int256 a1,, uint256 u1,) = feed1.latestRoundData();
        if (block.timestamp > u0 && block.timestamp - u0 > MAX_AGE) {
            return abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(feed0), u0, uint256(MAX_AGE));
        }
        if (a0 <= 0) return abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(feed0), a0);
        if (block.timestamp > u1 && block.timestamp - u1 > MAX_AGE) {
            return abi.encodeWithSelector(UsdValuation.StalePrice.selector, address(feed1), u1, uint256(MAX_AGE));
        }
        if (a1 <= 0) return abi.encodeWithSelector(UsdValuation.InvalidPrice.selector, address(feed1), a1);
        uint256 bps = _deviationBps();
        if (bps > MAX_BPS) {
            return abi.encodeWithSelector(
                MaxSlippageEnforcer.PoolPriceOffFeeds.selector, address(pool), _poolX96(), _feedX96(), bps, uint256(MAX_BPS)
            );
        }
        return "";
    }

    function _fresh() internal view returns (bool) {
        (,,, uint256 u0,) = feed0.latestRoundData();
        (,,, uint256 u1,) = feed1.latestRoundData();
        return
            !(block.timestamp > u0 && block.timestamp - u0 > MAX_AGE) && !(block.timestamp > u1 && block.timestamp - u1 > MAX_AGE);
    }

    /// token1 base units per token0 base unit at the feeds, Q96: (p0 / 10**(d0 + 8)) / (p1 / 10**(d1 + 8)).
    function _feedX96() internal view returns (uint256) {
        (, int256 a0,,,) = feed0.latestRoundData();
        (, int256 a1,,,) = feed1.latestRoundData();
        if (a0 <= 0 || a1 <= 0) return 0;
        uint256 d0 = token0.decimals();
        uint256 d1 = token1.decimals();
        if (d1 >= d0) return uint256(a0) * 10 ** (d1 - d0) * Q96 / uint256(a1);
        return uint256(a0) * Q96 / (uint256(a1) * 10 ** (d0 - d1));
    }

    function _poolX96() internal view returns (uint256) {
        (uint160 s,,,,,,) = pool.slot0();
        return UsdValuation.mulDiv(s, s, Q96, false);
    }

    function _deviationBps() internal view returns (uint256) {
        uint256 p = _poolX96();
        uint256 f = _feedX96();
        if (f == 0) return p == 0 ? 0 : type(uint256).max;
        return (p > f ? p - f : f - p) * 10_000 / f;
    }

    function _sqrt(
        uint256 x
    ) internal pure returns (uint256 r) {
        if (x == 0) return 0;
        r = x;
        uint256 y = (x >> 1) + 1;
        while (y < r) {
            r = y;
            y = (x / y + y) >> 1;
        }
    }
}
