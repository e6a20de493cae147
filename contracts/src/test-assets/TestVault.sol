// SPDX-License-Identifier: MIT
pragma solidity ^0.8.23;

import { IERC20 } from "../interfaces/IERC20.sol";
import { IERC4626 } from "../interfaces/IERC4626.sol";

/// @title TestVault
/// @notice A plain ERC-4626 share vault over one ERC-20, for the local devnet and tests. LOCAL ONLY: never
///         deploy to a real chain.
/// @dev Shares are 1:1 with assets while the vault is empty, proportional after
///      (shares = assets * totalSupply / totalAssets). Rounding favours the vault as ERC-4626 requires:
///      deposit and redeem round down, mint and withdraw round up. totalAssets is the vault's asset
///      balance, so a donation raises the share price. Share decimals equal the asset's.
contract TestVault is IERC4626 {
    event Deposit(address indexed sender, address indexed owner, uint256 assets, uint256 shares);
    event Withdraw(address indexed sender, address indexed receiver, address indexed owner, uint256 assets, uint256 shares);

    address public immutable asset;
    uint8 public immutable decimals;
    string public name;
    string public symbol;
    uint256 public totalSupply;

    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    constructor(
        address asset_
    ) {
        asset = asset_;
        decimals = IERC20(asset_).decimals();
        name = "Bardo Test Vault";
        symbol = "bTV";
    }

    // ------------------------------------------------------------ ERC-4626 views

    /// @notice The vault's balance of its asset.
    function totalAssets() public view returns (uint256) {
        return IERC20(asset).balanceOf(address(this));
    }

    /// @notice Shares that `assets` are worth, rounded down.
    function convertToShares(
        uint256 assets
    ) public view returns (uint256) {
        return _toShares(assets, false);
    }

    /// @notice Assets that `shares` are worth, rounded down.
    function convertToAssets(
        uint256 shares
    ) public view returns (uint256) {
        return _toAssets(shares, false);
    }

    /// @notice Shares a deposit of `assets` mints now.
    function previewDeposit(
        uint256 assets
    ) public view returns (uint256) {
        return _toShares(assets, false);
    }

    /// @notice Assets a mint of `shares` pulls now (rounded up).
    function previewMint(
        uint256 shares
    ) public view returns (uint256) {
        return _toAssets(shares, true);
    }

    /// @notice Shares a withdrawal of `assets` burns now (rounded up).
    function previewWithdraw(
        uint256 assets
    ) public view returns (uint256) {
        return _toShares(assets, true);
    }

    /// @notice Assets a redemption of `shares` pays now.
    function previewRedeem(
        uint256 shares
    ) public view returns (uint256) {
        return _toAssets(shares, false);
    }

    /// @notice No deposit cap.
    function maxDeposit(
        address
    ) external pure returns (uint256) {
        return type(uint256).max;
    }

    /// @notice No mint cap.
    function maxMint(
        address
    ) external pure returns (uint256) {
        return type(uint256).max;
    }

    /// @notice Everything `owner` can withdraw.
    function maxWithdraw(
        address owner
    ) external view returns (uint256) {
        return _toAssets(balanceOf[owner], false);
    }

    /// @notice Every share `owner` holds.
    function maxRedeem(
        address owner
    ) external view returns (uint256) {
        return balanceOf[owner];
    }

    // ------------------------------------------------------------ ERC-4626 actions

    /// @notice Pulls `assets` from the caller and mints shares to `receiver`.
    function deposit(
        uint256 assets,
        address receiver
    ) external returns (uint256 shares) {
        shares = _toShares(assets, false);
        _enter(receiver, assets, shares);
    }

    /// @notice Mints exactly `shares` to `receiver`, pulling the assets they cost.
    function mint(
        uint256 shares,
        address receiver
    ) external returns (uint256 assets) {
        assets = _toAssets(shares, true);
        _enter(receiver, assets, shares);
    }

    /// @notice Burns `owner`'s shares worth `assets` and sends the assets to `receiver`.
    function withdraw(
        uint256 assets,
        address receiver,
        address owner
    ) external returns (uint256 shares) {
        shares = _toShares(assets, true);
        _exit(receiver, owner, assets, shares);
    }

    /// @notice Burns `shares` of `owner` and sends what they are worth to `receiver`.
    function redeem(
        uint256 shares,
        address receiver,
        address owner
    ) external returns (uint256 assets) {
        assets = _toAssets(shares, false);
        _exit(receiver, owner, assets, shares);
    }

    // ------------------------------------------------------------ ERC-20 shares

    /// @notice Moves shares.
    function transfer(
        address to,
        uint256 value
    ) external returns (bool) {
        _transfer(msg.sender, to, value);
        return true;
    }

    /// @notice Approves a share spender.
    function approve(
        address spender,
        uint256 value
    ) external returns (bool) {
        require(spender != address(0), "ERC20: approve to the zero address");
        allowance[msg.sender][spender] = value;
        emit Approval(msg.sender, spender, value);
        return true;
    }

    /// @notice Moves shares under an allowance.
    function transferFrom(
        address from,
        address to,
        uint256 value
    ) external returns (bool) {
        _spendAllowance(from, msg.sender, value);
        _transfer(from, to, value);
        return true;
    }

    // ------------------------------------------------------------ internals

    function _toShares(
        uint256 assets,
        bool roundUp
    ) private view returns (uint256) {
        uint256 supply = totalSupply;
        uint256 total = totalAssets();
        if (supply == 0 || total == 0) return assets;
        return _mulDiv(assets, supply, total, roundUp);
    }

    function _toAssets(
        uint256 shares,
        bool roundUp
    ) private view returns (uint256) {
        uint256 supply = totalSupply;
        if (supply == 0) return shares;
        return _mulDiv(shares, totalAssets(), supply, roundUp);
    }

    function _mulDiv(
        uint256 x,
        uint256 y,
        uint256 d,
        bool roundUp
    ) private pure returns (uint256 r) {
        uint256 p = x * y;
        r = p / d;
        if (roundUp && p % d != 0) r += 1;
    }

    function _enter(
        address receiver,
        uint256 assets,
        uint256 shares
    ) private {
        require(receiver != address(0), "ERC20: mint to the zero address");
        require(IERC20(asset).transferFrom(msg.sender, address(this), assets), "TestVault: transfer failed");
        totalSupply += shares;
        balanceOf[receiver] += shares;
        emit Transfer(address(0), receiver, shares);
        emit Deposit(msg.sender, receiver, assets, shares);
    }

    function _exit(
        address receiver,
        address owner,
        uint256 assets,
        uint256 shares
    ) private {
        if (msg.sender != owner) _spendAllowance(owner, msg.sender, shares);
        uint256 balance = balanceOf[owner];
        require(balance >= shares, "ERC4626: redeem more than max");
        unchecked {
            balanceOf[owner] = balance - shares;
            totalSupply -= shares;
        }
        emit Transfer(owner, address(0), shares);
        require(IERC20(asset).transfer(receiver, assets), "TestVault: transfer failed");
        emit Withdraw(msg.sender, receiver, owner, assets, shares);
    }

    function _spendAllowance(
        address owner,
        address spender,
        uint256 value
    ) private {
        uint256 allowed = allowance[owner][spender];
        if (allowed != type(uint256).max) {
            require(allowed >= value, "ERC20: insufficient allowance");
            unchecked {
                allowance[owner][spender] = allowed - value;
            }
        }
    }

    function _transfer(
        address from,
        address to,
        uint256 value
    ) private {
        require(to != address(0), "ERC20: transfer to the zero address");
        uint256 balance = balanceOf[from];
        require(balance >= value, "ERC20: transfer amount exceeds balance");
        unchecked {
            balanceOf[from] = balance - value;
        }
        balanceOf[to] += value;
        emit Transfer(from, to, value);
    }
}
